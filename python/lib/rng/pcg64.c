/* pcg64.c -- PCG XSL RR 128/64 (O'Neill 2014; pcg-c's
 * pcg_setseq_128_xsl_rr_64).  Seeded as pcg64_srandom(initstate = seed,
 * initseq = 54).  Test vector (pcg-c check-pcg64, initstate 42, initseq 54):
 * 0x86b1da1d72062b68, 0x1304aa46c9853d39, 0xa3670e9e0dd50358, ... */
#include "generators.h"

#define MUL (((fs_u128)2549297995355413924ULL << 64) + 4865540595714422341ULL)

typedef struct pcg {
    fs_u128 state, inc;
} pcg;

static inline void step(pcg *p)
{
    p->state = p->state * MUL + p->inc;
}

static void load(const fs_rng *rng, pcg *p)
{
    memcpy(p, rng->st.u64, sizeof *p);
}

static void store(fs_rng *rng, const pcg *p)
{
    memcpy(rng->st.u64, p, sizeof *p);
}

static int seed_u64(fs_rng *rng, uint64_t seed)
{
    pcg p;
    p.state = 0;
    p.inc = ((fs_u128)54 << 1) | 1;
    step(&p);
    p.state += seed;
    step(&p);
    store(rng, &p);
    return FS_OK;
}

static void refill(fs_rng *rng)
{
    pcg p;
    load(rng, &p);
    fs_stream *s = rng->s;
    for (size_t k = 0; k < FS_RNG_BUF; k += 8) {
        step(&p);
        uint64_t x = (uint64_t)(p.state >> 64) ^ (uint64_t)p.state;
        unsigned rot = (unsigned)(p.state >> 122);
        uint64_t v = (x >> rot) | (x << ((64 - rot) & 63));
        memcpy(s->buf + k, &v, 8);
    }
    store(rng, &p);
    s->pos = 0;
    s->end = FS_RNG_BUF;
}

static const fs_rng_info info = {
    "pcg64", "PCG XSL RR 128/64 (O'Neill); fast, not cryptographic",
    64, 256, 64, 0, 0};

const fs_rng_vtable fs__pcg64_vt = {&info, refill, NULL, seed_u64, NULL};

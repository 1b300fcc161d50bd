/* delphi.c -- LEGACY, for demonstrations only: Borland Delphi's Random, the
 * generator of the 1999 ASF Software poker shuffle (Arkin et al., "How We
 * Learned to Cheat at Online Poker").  RandSeed := RandSeed * 134775813 + 1
 * (mod 2^32); Random(r) = (r * RandSeed) >> 32 with the new RandSeed.  One
 * native output (a u32) is the new RandSeed, so (u32 * r) >> 32 is exactly
 * Delphi's Random(r).  The seed is RandSeed (32 bits; ASF used milliseconds
 * since midnight: fewer than 2^27 values).
 * Test vectors: RandSeed 0, Random(100000) -> 0, 3137, 86104, 20258, 27292;
 * RandSeed 42, Random(100) -> 31, 87, 20, 15, 1, 84, 72, 0, 61, 99. */
#include "generators.h"

static int seed_u64(fs_rng *rng, uint64_t seed)
{
    rng->st.u32[0] = (uint32_t)seed;
    return FS_OK;
}

static void refill(fs_rng *rng)
{
    fs_stream *s = rng->s;
    uint32_t x = rng->st.u32[0];
    for (size_t k = 0; k < FS_RNG_BUF; k += 4) {
        x = x * 134775813u + 1u;
        memcpy(s->buf + k, &x, 4);
    }
    rng->st.u32[0] = x;
    s->pos = 0;
    s->end = FS_RNG_BUF;
}

static const fs_rng_info info = {
    "delphi", "LEGACY: Borland Delphi Random LCG (1999 ASF poker); demos only",
    32, 32, 32, 0, 1};

const fs_rng_vtable fs__delphi_vt = {&info, refill, NULL, seed_u64, NULL};

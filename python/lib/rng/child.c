/* child.c -- keyed child generators (child.h). */
#include "child.h"
#include "generators.h"

_Static_assert(sizeof(((fs__child *)0)->ext) == 64,
               "chacha20.c checks its state fits in 64");

void fs__rng_child(fs__child *c, int crypto, const unsigned char key[32],
                   uint64_t index)
{
    fs_rng *r = &c->rng;
    memset(r, 0, offsetof(fs_rng, own));
    r->s = &r->own;
    r->own.pos = r->own.end = 0;
    if (crypto) {
        unsigned char nonce[12] = {0};
        for (int i = 0; i < 8; i++)
            nonce[4 + i] = (unsigned char)(index >> (8 * i));
        r->vt = &fs__chacha20_vt;
        fs__chacha20_keyed(r, c->ext, key, nonce);
    } else {
        uint64_t k[4];
        memcpy(k, key, 32);
        uint64_t x = k[0] ^ (index * 0x9e3779b97f4a7c15ULL);
        for (int i = 0; i < 4; i++)
            r->st.u64[i] = fs__splitmix64_next(&x) ^ k[i];
        if ((r->st.u64[0] | r->st.u64[1] | r->st.u64[2] | r->st.u64[3]) == 0)
            r->st.u64[0] = 1; /* the one state xoshiro must avoid */
        r->vt = &fs__xoshiro256ss_vt;
    }
}

void fs__rng_child_wipe(fs__child *c)
{
    sodium_memzero(c, sizeof *c);
}

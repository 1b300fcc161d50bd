/* test_vrf.c -- ECVRF-EDWARDS25519-SHA512-TAI (include/fairshuf/vrf.h):
 * RFC 9381 Appendix B.3 Examples 16-18 (pk, pi, beta), prove/verify round
 * trips, every bit of a proof flipped, s >= L, non-canonical and small-order
 * encodings, and the torsion-Gamma policy (a proof an RFC-exact verifier
 * accepts, with the same beta, that fairshuf rejects). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "fairshuf/vrf.h"

static void unhex(const char *h, uint8_t *out, size_t n)
{
    assert_int_equal(strlen(h), 2 * n);
    assert_int_equal(fs_hex_decode(h, out, n), FS_OK);
}

/* RFC 9381 Appendix B.3 (ECVRF-EDWARDS25519-SHA512-TAI), Examples 16-18. */
static const struct {
    const char *sk, *pk, *alpha, *pi, *beta;
} rfc[3] = {
    {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "8657106690b5526245a92b003bb079ccd1a92130477671f6fc01ad16f26f723f"
     "26f8a57ccaed74ee1b190bed1f479d97"
     "27d2d0f9b005a6e456a35d4fb0daab1268a1b0db10836d9826a528ca76567805",
     "90cf1df3b703cce59e2a35b925d411164068269d7b2d29f3301c03dd757876ff"
     "66b71dda49d2de59d03450451af026798e8f81cd2e333de5cdf4f3e140fdd8ae"},
    {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "f3141cd382dc42909d19ec5110469e4feae18300e94f304590abdced48aed593"
     "3bf0864a62558b3ed7f2fea45c92a465"
     "301b3bbf5e3e54ddf2d935be3b67926da3ef39226bbc355bdc9850112c8f4b02",
     "eb4440665d3891d668e7e0fcaf587f1b4bd7fbfe99d0eb2211ccec90496310eb"
     "5e33821bc613efb94db5e5b54c70a848a0bef4553a41befc57663b56373a5031"},
    {"c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
     "af82",
     "9bc0f79119cc5604bf02d23b4caede71393cedfbb191434dd016d30177ccbf80"
     "96bb474e53895c362d8628ee9f9ea3c0"
     "e52c7a5c691b6c18c9979866568add7a2d41b00b05081ed0f58ee5e31b3a970e",
     "645427e5d00c62a23fb703732fa5d892940935942101e456ecca7bb217c61c45"
     "2118fec1219202a0edcf038bb6373241578be7217ba85a2687f7a0310b2df19f"},
};

static void rfc_examples(void **state)
{
    (void)state;
    for (int e = 0; e < 3; e++) {
        uint8_t sk[32], pk[32], want_pk[32], alpha[2], pi[80], want_pi[80];
        uint8_t beta[64], want_beta[64], beta2[64];
        size_t alen = strlen(rfc[e].alpha) / 2;
        unhex(rfc[e].sk, sk, 32);
        unhex(rfc[e].pk, want_pk, 32);
        if (alen)
            unhex(rfc[e].alpha, alpha, alen);
        unhex(rfc[e].pi, want_pi, 80);
        unhex(rfc[e].beta, want_beta, 64);
        assert_int_equal(fs_vrf_public_key(sk, pk), FS_OK);
        assert_memory_equal(pk, want_pk, 32);
        assert_true(fs_vrf_public_key_ok(pk));
        assert_int_equal(fs_vrf_prove(sk, alpha, alen, pi, beta), FS_OK);
        assert_memory_equal(pi, want_pi, 80);
        assert_memory_equal(beta, want_beta, 64);
        assert_int_equal(fs_vrf_verify(pk, alpha, alen, want_pi, beta2),
                         FS_OK);
        assert_memory_equal(beta2, want_beta, 64);
        assert_int_equal(fs_vrf_proof_to_hash(want_pi, beta2), FS_OK);
        assert_memory_equal(beta2, want_beta, 64);
    }
}

/* Every single-bit change of pi (Gamma, c and s), of alpha and of the key
 * is rejected, and verify zeroes beta when it rejects. */
static void every_bit_flipped(void **state)
{
    (void)state;
    uint8_t sk[32], pk[32], pi[80], beta[64], alpha[2];
    unhex(rfc[2].sk, sk, 32);
    unhex(rfc[2].pk, pk, 32);
    unhex(rfc[2].alpha, alpha, 2);
    assert_int_equal(fs_vrf_prove(sk, alpha, 2, pi, NULL), FS_OK);
    for (int bit = 0; bit < 80 * 8; bit++) {
        pi[bit / 8] ^= (uint8_t)(1u << bit % 8);
        memset(beta, 0xaa, sizeof beta);
        assert_int_equal(fs_vrf_verify(pk, alpha, 2, pi, beta), FS_EINVAL);
        for (int i = 0; i < 64; i++)
            assert_int_equal(beta[i], 0);
        pi[bit / 8] ^= (uint8_t)(1u << bit % 8);
    }
    for (int bit = 0; bit < 16; bit++) {
        alpha[bit / 8] ^= (uint8_t)(1u << bit % 8);
        assert_int_equal(fs_vrf_verify(pk, alpha, 2, pi, NULL), FS_EINVAL);
        alpha[bit / 8] ^= (uint8_t)(1u << bit % 8);
    }
    assert_int_equal(fs_vrf_verify(pk, alpha, 1, pi, NULL), FS_EINVAL);
    for (int bit = 0; bit < 256; bit++) {
        pk[bit / 8] ^= (uint8_t)(1u << bit % 8);
        assert_int_equal(fs_vrf_verify(pk, alpha, 2, pi, NULL), FS_EINVAL);
        pk[bit / 8] ^= (uint8_t)(1u << bit % 8);
    }
    assert_int_equal(fs_vrf_verify(pk, alpha, 2, pi, NULL), FS_OK);
}

/* Keys from the OS: prove then verify; beta is a function of (pk, alpha)
 * only; another key's proof fails. */
static void round_trips(void **state)
{
    (void)state;
    uint8_t sk[32], pk[32], sk2[32], pk2[32], pi[80], beta[64], b2[64];
    assert_int_equal(fs_vrf_keygen(sk2, pk2), FS_OK);
    for (int i = 0; i < 50; i++) {
        uint8_t alpha[40];
        size_t len = (size_t)i % sizeof alpha;
        assert_int_equal(fs_vrf_keygen(sk, pk), FS_OK);
        assert_int_equal(fs_os_random(alpha, sizeof alpha), FS_OK);
        assert_int_equal(fs_vrf_prove(sk, alpha, len, pi, beta), FS_OK);
        assert_int_equal(fs_vrf_verify(pk, alpha, len, pi, b2), FS_OK);
        assert_memory_equal(beta, b2, 64);
        assert_int_equal(fs_vrf_verify(pk2, alpha, len, pi, NULL), FS_EINVAL);
    }
    assert_int_equal(fs_vrf_keygen(NULL, pk), FS_EINVAL);
    assert_int_equal(fs_vrf_prove(sk, NULL, 1, pi, NULL), FS_EINVAL);
    assert_int_equal(fs_vrf_verify(pk, NULL, 1, pi, NULL), FS_EINVAL);
}

static const uint8_t order_l[32] = {
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
    0xa2, 0xde, 0xf9, 0xde, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10};

/* s + L names the same scalar; RFC 9381 (and fairshuf) require s < L.  s = L
 * itself too. */
static void s_not_below_l(void **state)
{
    (void)state;
    uint8_t pk[32], pi[80], alpha[2];
    unhex(rfc[2].pk, pk, 32);
    unhex(rfc[2].alpha, alpha, 2);
    unhex(rfc[2].pi, pi, 80);
    unsigned carry = 0;
    for (int i = 0; i < 32; i++) {
        unsigned t = pi[48 + i] + order_l[i] + carry;
        pi[48 + i] = (uint8_t)t;
        carry = t >> 8;
    }
    assert_int_equal(carry, 0);
    uint8_t beta[64];
    assert_int_equal(fs_vrf_verify(pk, alpha, 2, pi, NULL), FS_EINVAL);
    assert_int_equal(fs_vrf_proof_to_hash(pi, beta), FS_EINVAL);
    memcpy(pi + 48, order_l, 32);
    assert_int_equal(fs_vrf_proof_to_hash(pi, beta), FS_EINVAL);
}

/* Encodings: the identity and the order-2 point as keys; y >= p (the
 * identity written as y = p + 1); x = 0 with the sign bit set; a key with
 * a torsion component (Y + T). */
static void encodings(void **state)
{
    (void)state;
    uint8_t id[32] = {1}, t2[32], noncanon[32], negzero[32] = {1}, pk[32];
    uint8_t pt[32], pi[80], beta[64];
    memset(t2, 0xff, 32); /* (0, -1): y = p - 1 */
    t2[0] = 0xec;
    t2[31] = 0x7f;
    memset(noncanon, 0xff, 32); /* y = p + 1 = 1 mod p */
    noncanon[0] = 0xee;
    noncanon[31] = 0x7f;
    negzero[31] = 0x80;
    assert_false(fs_vrf_public_key_ok(id));
    assert_false(fs_vrf_public_key_ok(t2));
    assert_false(fs_vrf_public_key_ok(noncanon));
    assert_false(fs_vrf_public_key_ok(negzero));
    unhex(rfc[0].pk, pk, 32);
    assert_int_equal(crypto_core_ed25519_add(pt, pk, t2), 0);
    assert_false(fs_vrf_public_key_ok(pt));
    unhex(rfc[0].pi, pi, 80);
    assert_int_equal(fs_vrf_verify(pt, NULL, 0, pi, NULL), FS_EINVAL);
    /* Gamma non-canonical or x = 0 with sign 1: not even a hash. */
    memcpy(pi, noncanon, 32);
    assert_int_equal(fs_vrf_proof_to_hash(pi, beta), FS_EINVAL);
    memcpy(pi, negzero, 32);
    assert_int_equal(fs_vrf_proof_to_hash(pi, beta), FS_EINVAL);
}

/* ---- the torsion case ------------------------------------------------ */

/* The test's own encode_to_curve (RFC 9381 5.4.1.1), to build a proof the
 * library would never make. */
static void h_of(const uint8_t pk[32], const uint8_t *alpha, size_t len,
                 uint8_t h[32])
{
    for (unsigned ctr = 0; ctr < 256; ctr++) {
        uint8_t buf[64 + 4], hash[64];
        size_t n = 0;
        buf[n++] = 3;
        buf[n++] = 1;
        memcpy(buf + n, pk, 32);
        n += 32;
        memcpy(buf + n, alpha, len);
        n += len;
        buf[n++] = (uint8_t)ctr;
        buf[n++] = 0;
        crypto_hash_sha512(hash, buf, n);
        uint8_t id[32] = {1}, back[32];
        if (crypto_core_ed25519_add(back, hash, id) == 0 &&
            memcmp(back, hash, 32) == 0) {
            assert_int_equal(crypto_core_ed25519_add(h, hash, hash), 0);
            assert_int_equal(crypto_core_ed25519_add(h, h, h), 0);
            assert_int_equal(crypto_core_ed25519_add(h, h, h), 0);
            return;
        }
    }
    fail();
}

static void chal(const uint8_t *const p[5], uint8_t c[32])
{
    uint8_t buf[2 + 160 + 1], hash[64];
    buf[0] = 3;
    buf[1] = 2;
    for (int i = 0; i < 5; i++)
        memcpy(buf + 2 + 32 * i, p[i], 32);
    buf[162] = 0;
    crypto_hash_sha512(hash, buf, sizeof buf);
    memset(c, 0, 32);
    memcpy(c, hash, 16);
}

/* Gamma' = x*H + T, T = (0, -1) of order 2.  With a nonce k whose challenge
 * c is even, c*T is the identity, so V = s*H - c*Gamma' = k*H and the RFC's
 * equations hold: an RFC-exact verifier accepts pi', and its beta (a hash
 * of 8*Gamma' = 8*x*H) is the honest beta.  fairshuf rejects pi'. */
static void torsion_gamma(void **state)
{
    (void)state;
    uint8_t sk[32], pk[32], alpha[2] = {0xaf, 0x82}, h[32], x[32], wide[64];
    uint8_t gamma[32], t2[32], gamma_t[32], k[32], u[32], v[32], c[32];
    uint8_t cx[32], pi[80], beta[64], beta_t[64], sh[32], cg[32], v2[32];
    uint8_t sb[32], cy[32], u2[32], c2[32];
    unhex(rfc[2].sk, sk, 32);
    assert_int_equal(fs_vrf_public_key(sk, pk), FS_OK);
    memset(t2, 0xff, 32);
    t2[0] = 0xec;
    t2[31] = 0x7f;
    crypto_hash_sha512(wide, sk, 32);
    wide[0] &= 248;
    wide[31] = (uint8_t)((wide[31] & 127) | 64);
    memset(wide + 32, 0, 32);
    crypto_core_ed25519_scalar_reduce(x, wide);
    h_of(pk, alpha, 2, h);
    assert_int_equal(crypto_scalarmult_ed25519_noclamp(gamma, x, h), 0);
    assert_int_equal(crypto_core_ed25519_add(gamma_t, gamma, t2), 0);
    int tries = 0;
    do {
        assert_true(++tries < 200); /* 1/2 each: 2^-199 to fail */
        crypto_core_ed25519_scalar_random(k);
        assert_int_equal(crypto_scalarmult_ed25519_base_noclamp(u, k), 0);
        assert_int_equal(crypto_scalarmult_ed25519_noclamp(v, k, h), 0);
        const uint8_t *pts[5] = {pk, h, gamma_t, u, v};
        chal(pts, c);
    } while (c[0] & 1);
    crypto_core_ed25519_scalar_mul(cx, c, x);
    memcpy(pi, gamma_t, 32);
    memcpy(pi + 32, c, 16);
    crypto_core_ed25519_scalar_add(pi + 48, k, cx);
    /* The RFC's verification, step by step: U = s*B - c*Y, V = s*H -
     * c*Gamma' where c*Gamma' = c*Gamma + c*T = c*Gamma (c even). */
    assert_int_equal(crypto_scalarmult_ed25519_base_noclamp(sb, pi + 48), 0);
    assert_int_equal(crypto_scalarmult_ed25519_noclamp(cy, c, pk), 0);
    assert_int_equal(crypto_core_ed25519_sub(u2, sb, cy), 0);
    assert_int_equal(crypto_scalarmult_ed25519_noclamp(sh, pi + 48, h), 0);
    assert_int_equal(crypto_scalarmult_ed25519_noclamp(cg, c, gamma), 0);
    assert_int_equal(crypto_core_ed25519_sub(v2, sh, cg), 0);
    const uint8_t *pts2[5] = {pk, h, gamma_t, u2, v2};
    chal(pts2, c2);
    assert_memory_equal(c2, c, 16); /* RFC-exact: VALID */
    /* Same beta as the honest proof... */
    assert_int_equal(fs_vrf_proof_to_hash(pi, beta_t), FS_OK);
    uint8_t honest[80];
    assert_int_equal(fs_vrf_prove(sk, alpha, 2, honest, beta), FS_OK);
    assert_memory_equal(beta, beta_t, 64);
    assert_memory_not_equal(honest, pi, 32);
    /* ...and fairshuf's policy rejects it. */
    assert_int_equal(fs_vrf_verify(pk, alpha, 2, pi, NULL), FS_EINVAL);
    assert_int_equal(fs_vrf_verify(pk, alpha, 2, honest, NULL), FS_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc_examples),
        cmocka_unit_test(every_bit_flipped),
        cmocka_unit_test(round_trips),
        cmocka_unit_test(s_not_below_l),
        cmocka_unit_test(encodings),
        cmocka_unit_test(torsion_gamma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

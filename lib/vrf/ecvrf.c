/* ecvrf.c -- ECVRF-EDWARDS25519-SHA512-TAI, RFC 9381 section 5 with suite
 * 0x03 (section 5.5), composed from libsodium 1.0.18's public API only:
 * crypto_hash_sha512, crypto_core_ed25519_{add,sub,is_valid_point},
 * crypto_scalarmult_ed25519[_base]_noclamp, crypto_core_ed25519_scalar_*.
 * The policy beyond the RFC (what is rejected and why) is in
 * include/fairshuf/vrf.h; the checks below cite the RFC's step numbers. */
#include <sodium.h>

#include "../internal.h"
#include "../rng/generators.h"
#include "fairshuf/vrf.h"

#define SUITE 0x03

/* L = 2^252 + 27742317777372353535851937790883648493, little-endian. */
static const uint8_t order_l[32] = {
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
    0xa2, 0xde, 0xf9, 0xde, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10};

/* 1 if the little-endian 32-byte s is below L (RFC 9381 5.4.4 step 9). */
static int below_l(const uint8_t s[32])
{
    for (int i = 31; i >= 0; i--)
        if (s[i] != order_l[i])
            return s[i] < order_l[i];
    return 0;
}

/* string_to_point (RFC 8032 5.1.3) for any point of the curve: canonical y
 * (y < p), not "x = 0 with the sign bit set", and on the curve.  libsodium's
 * add decodes and checks the curve equation but not the first two, which
 * are encoding checks made on the bytes.  P + 0 = P re-encodes canonically,
 * so a decodable string comes back unchanged. */
static int decodes(const uint8_t p[32])
{
    static const uint8_t zero_point[32] = {1}; /* the identity, (0, 1) */
    uint8_t y[32], back[32];
    memcpy(y, p, 32);
    y[31] &= 0x7f;
    /* y >= p = 2^255 - 19: 0x7f ff .. ff then a low byte >= 0xed. */
    int all_ff = y[31] == 0x7f;
    for (int i = 30; i > 0 && all_ff; i--)
        all_ff = y[i] == 0xff;
    if (all_ff && y[0] >= 0xed)
        return 0;
    if (crypto_core_ed25519_add(back, p, zero_point) != 0)
        return 0;
    return memcmp(back, p, 32) == 0; /* differs only for x = 0, sign 1 */
}

/* 8*P by three doublings (P decodable). */
static int times_cofactor(uint8_t out[32], const uint8_t p[32])
{
    if (crypto_core_ed25519_add(out, p, p) != 0 ||
        crypto_core_ed25519_add(out, out, out) != 0 ||
        crypto_core_ed25519_add(out, out, out) != 0)
        return -1;
    return 0;
}

/* ECVRF_encode_to_curve_try_and_increment (5.4.1.1), salt = PK_string. */
static int encode_to_curve(const uint8_t pk[32], const uint8_t *alpha,
                           size_t len, uint8_t h[32])
{
    static const uint8_t front[2] = {SUITE, 0x01};
    for (unsigned ctr = 0; ctr < 256; ctr++) {
        uint8_t tail[2] = {(uint8_t)ctr, 0x00}, hash[64];
        crypto_hash_sha512_state st;
        crypto_hash_sha512_init(&st);
        crypto_hash_sha512_update(&st, front, 2);
        crypto_hash_sha512_update(&st, pk, 32);
        if (len > 0)
            crypto_hash_sha512_update(&st, alpha, len);
        crypto_hash_sha512_update(&st, tail, 2);
        crypto_hash_sha512_final(&st, hash);
        if (decodes(hash))
            return times_cofactor(h, hash);
    }
    return -1;
}

/* ECVRF_challenge_generation (5.4.3): the first 16 bytes of SHA-512(suite ||
 * 0x02 || Y || H || Gamma || U || V || 0x00), as a 32-byte scalar. */
static void challenge(const uint8_t *const p[5], uint8_t c[32])
{
    static const uint8_t front[2] = {SUITE, 0x02}, back = 0x00;
    uint8_t hash[64];
    crypto_hash_sha512_state st;
    crypto_hash_sha512_init(&st);
    crypto_hash_sha512_update(&st, front, 2);
    for (int i = 0; i < 5; i++)
        crypto_hash_sha512_update(&st, p[i], 32);
    crypto_hash_sha512_update(&st, &back, 1);
    crypto_hash_sha512_final(&st, hash);
    memset(c, 0, 32);
    memcpy(c, hash, 16);
}

/* The secret scalar x = clamp(SHA-512(sk)[0..32)) reduced mod L, and the
 * nonce key SHA-512(sk)[32..64). */
static void expand(const uint8_t sk[32], uint8_t x[32], uint8_t nk[32])
{
    uint8_t h[64], wide[64] = {0};
    crypto_hash_sha512(h, sk, 32);
    h[0] &= 248;
    h[31] &= 127;
    h[31] |= 64;
    memcpy(wide, h, 32);
    crypto_core_ed25519_scalar_reduce(x, wide);
    if (nk)
        memcpy(nk, h + 32, 32);
    sodium_memzero(h, sizeof h);
    sodium_memzero(wide, sizeof wide);
}

int fs_vrf_public_key(const uint8_t sk[32], uint8_t pk[32])
{
    if (sk == NULL || pk == NULL || fs__sodium_ready() != FS_OK)
        return FS_EINVAL;
    uint8_t x[32];
    expand(sk, x, NULL);
    int rc = crypto_scalarmult_ed25519_base_noclamp(pk, x);
    sodium_memzero(x, sizeof x);
    return rc == 0 ? FS_OK : FS_EINVAL;
}

int fs_vrf_keygen(uint8_t sk[32], uint8_t pk[32])
{
    if (sk == NULL || pk == NULL)
        return FS_EINVAL;
    int rc = fs_os_random(sk, 32);
    if (rc == FS_OK)
        rc = fs_vrf_public_key(sk, pk);
    if (rc != FS_OK)
        sodium_memzero(sk, 32);
    return rc;
}

int fs_vrf_public_key_ok(const uint8_t pk[32])
{
    return pk != NULL && fs__sodium_ready() == FS_OK &&
           crypto_core_ed25519_is_valid_point(pk) == 1;
}

int fs_vrf_prove(const uint8_t sk[32], const uint8_t *alpha, size_t len,
                 uint8_t pi[80], uint8_t beta[64])
{
    if (sk == NULL || pi == NULL || (alpha == NULL && len > 0) ||
        fs__sodium_ready() != FS_OK)
        return FS_EINVAL;
    uint8_t x[32], nk[32], y[32], h[32], gamma[32], k[32], u[32], v[32];
    uint8_t kh[64], c[32], cx[32];
    int rc = FS_EINVAL;
    expand(sk, x, nk);
    if (crypto_scalarmult_ed25519_base_noclamp(y, x) != 0 ||
        encode_to_curve(y, alpha, len, h) != 0 ||
        crypto_scalarmult_ed25519_noclamp(gamma, x, h) != 0)
        goto out;
    /* ECVRF_nonce_generation_RFC8032 (5.4.2.2). */
    crypto_hash_sha512_state st;
    crypto_hash_sha512_init(&st);
    crypto_hash_sha512_update(&st, nk, 32);
    crypto_hash_sha512_update(&st, h, 32);
    crypto_hash_sha512_final(&st, kh);
    crypto_core_ed25519_scalar_reduce(k, kh);
    if (crypto_scalarmult_ed25519_base_noclamp(u, k) != 0 ||
        crypto_scalarmult_ed25519_noclamp(v, k, h) != 0)
        goto out;
    const uint8_t *pts[5] = {y, h, gamma, u, v};
    challenge(pts, c);
    crypto_core_ed25519_scalar_mul(cx, c, x);
    memcpy(pi, gamma, 32);
    memcpy(pi + 32, c, 16);
    crypto_core_ed25519_scalar_add(pi + 48, k, cx); /* s = k + c*x mod L */
    rc = beta ? fs_vrf_proof_to_hash(pi, beta) : FS_OK;
out:
    sodium_memzero(x, sizeof x);
    sodium_memzero(nk, sizeof nk);
    sodium_memzero(k, sizeof k);
    sodium_memzero(kh, sizeof kh);
    sodium_memzero(cx, sizeof cx);
    if (rc != FS_OK)
        sodium_memzero(pi, 80);
    return rc;
}

/* ECVRF_decode_proof (5.4.4): Gamma decodes, s < L. */
static int proof_decodes(const uint8_t pi[80])
{
    return decodes(pi) && below_l(pi + 48);
}

int fs_vrf_proof_to_hash(const uint8_t pi[80], uint8_t beta[64])
{
    if (pi == NULL || beta == NULL || fs__sodium_ready() != FS_OK)
        return FS_EINVAL;
    uint8_t g8[32];
    if (!proof_decodes(pi) || times_cofactor(g8, pi) != 0) {
        sodium_memzero(beta, 64);
        return FS_EINVAL;
    }
    static const uint8_t front[2] = {SUITE, 0x03}, back = 0x00;
    crypto_hash_sha512_state st;
    crypto_hash_sha512_init(&st);
    crypto_hash_sha512_update(&st, front, 2);
    crypto_hash_sha512_update(&st, g8, 32);
    crypto_hash_sha512_update(&st, &back, 1);
    crypto_hash_sha512_final(&st, beta);
    return FS_OK;
}

int fs_vrf_verify(const uint8_t pk[32], const uint8_t *alpha, size_t len,
                  const uint8_t pi[80], uint8_t beta[64])
{
    uint8_t h[32], c[32], sb[32], cy[32], u[32], sh[32], cg[32], v[32];
    uint8_t c2[32];
    int ok = 0;
    if (beta)
        memset(beta, 0, 64);
    if (pk == NULL || pi == NULL || (alpha == NULL && len > 0))
        return FS_EINVAL;
    /* Steps 1-2: Y decodes and is a valid key (the policy: in the
     * prime-order subgroup, not small order).  Step 3: decode pi, and the
     * policy on Gamma: is_valid_point refuses a torsion component. */
    if (!fs_vrf_public_key_ok(pk) || !proof_decodes(pi) ||
        crypto_core_ed25519_is_valid_point(pi) != 1)
        return FS_EINVAL;
    memset(c, 0, 32);
    memcpy(c, pi + 32, 16);
    /* Steps 4-6: H; U = s*B - c*Y; V = s*H - c*Gamma. */
    if (encode_to_curve(pk, alpha, len, h) != 0 ||
        crypto_scalarmult_ed25519_base_noclamp(sb, pi + 48) != 0 ||
        crypto_scalarmult_ed25519_noclamp(cy, c, pk) != 0 ||
        crypto_core_ed25519_sub(u, sb, cy) != 0 ||
        crypto_scalarmult_ed25519_noclamp(sh, pi + 48, h) != 0 ||
        crypto_scalarmult_ed25519_noclamp(cg, c, pi) != 0 ||
        crypto_core_ed25519_sub(v, sh, cg) != 0)
        return FS_EINVAL;
    /* Steps 7-8: c' = challenge(Y, H, Gamma, U, V) must equal c. */
    const uint8_t *pts[5] = {pk, h, pi, u, v};
    challenge(pts, c2);
    ok = sodium_memcmp(c, c2, 16) == 0;
    if (!ok)
        return FS_EINVAL;
    return beta ? fs_vrf_proof_to_hash(pi, beta) : FS_OK;
}

/*
 * fairshuf/vrf.h -- a verifiable random function: ECVRF-EDWARDS25519-
 * SHA512-TAI, RFC 9381 section 5, suite 0x03, and the dealing scheme
 * "fairshuf-vrf-1" built on it (docs/provably-fair.md, section
 * "Scheme fairshuf-vrf-1").
 *
 * The VRF maps an input alpha (any bytes) under a secret key to a 64-byte
 * output beta and an 80-byte proof pi.  Anyone with the public key checks
 * pi and gets the same beta; for a given public key and alpha there is only
 * one beta a proof can show (uniqueness), and without the secret key beta is
 * unpredictable (pseudorandomness).  Every operation is composed from
 * libsodium's public API (SHA-512, Ed25519 point add/sub, validity checks,
 * scalar multiplication, scalar arithmetic mod L): no field arithmetic here.
 *
 * THE KEY IS A VRF KEY AND NOTHING ELSE.  It has the shape of an RFC 8032
 * Ed25519 secret key (32 bytes; the public key is the same point), but it
 * must never sign, never serve as a server seed, never be derived from or
 * reused as any other key: an Ed25519 signature and a VRF proof under one
 * key leak nothing known today, but no proof covers the mix.  fairshuf keeps
 * it in a file of its own (`fairshuf fair vrf-keygen`, mode 0600, 64 hex
 * digits and a newline; by convention named *.vrf-key).
 *
 * Policy beyond the RFC (all rejections; an RFC-exact verifier accepts a
 * few proofs these reject, never one with another beta):
 *   - the public key must decode canonically, not have small order and lie
 *     in the prime-order subgroup (RFC 9381 section 5.4.5 rejects only small
 *     order; libsodium's scalar multiplication refuses the rest);
 *   - Gamma must decode canonically, not have small order and lie in the
 *     prime-order subgroup.  RFC 9381 accepts Gamma' = x*H + T for a torsion
 *     point T when the challenge c is a multiple of T's order: the same beta
 *     (beta hashes 8*Gamma) with another pi.  fairshuf rejects such a pi, so
 *     each (key, alpha) has one Gamma a proof may carry;
 *   - s must be below L (RFC 9381 too) and c*Y, s*B, s*H must not be the
 *     identity (c = 0 or s = 0: probability 2^-128 for an honest proof).
 * Timing: prove uses libsodium's constant-time scalar multiplication on the
 * secret; verify handles only public data.
 */
#ifndef FAIRSHUF_VRF_H
#define FAIRSHUF_VRF_H

#include <fairshuf.h>
#include <fairshuf/cards.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FS_VRF_SECRET_BYTES 32 /* RFC 8032 secret key (the seed) */
#define FS_VRF_PUBLIC_BYTES 32 /* the point Y = x*B, RFC 8032 encoding */
#define FS_VRF_PROOF_BYTES 80  /* Gamma (32) || c (16) || s (32) */
#define FS_VRF_BETA_BYTES 64   /* SHA-512 output */

/* A new key from the operating system (getrandom): sk 32 random bytes, pk
 * its public key.  Errors: FS_EINVAL (NULL), FS_ERANDOM.  O(1). */
FS_API int fs_vrf_keygen(uint8_t sk[32], uint8_t pk[32]);

/* The public key of sk (RFC 8032 section 5.1.5: x = clamp(SHA-512(sk)[0..32)),
 * Y = x*B).  Errors: FS_EINVAL (NULL).  O(1). */
FS_API int fs_vrf_public_key(const uint8_t sk[32], uint8_t pk[32]);

/* 1 if pk is a public key fs_vrf_verify accepts (canonical encoding, not of
 * small order, in the prime-order subgroup), else 0.  O(1). */
FS_API int fs_vrf_public_key_ok(const uint8_t pk[32]);

/* ECVRF_prove (RFC 9381 section 5.1): the proof pi of alpha[0..len) under
 * sk, deterministic (nonce of section 5.4.2.2).  beta may be NULL; else it
 * receives the proof's hash (fs_vrf_proof_to_hash).  Errors: FS_EINVAL
 * (NULL pointers, alpha NULL with len > 0, or a probability 2^-128 failure
 * such as encode_to_curve finding no point in 256 tries).  O(len). */
FS_API int fs_vrf_prove(const uint8_t sk[32], const uint8_t *alpha,
                        size_t len, uint8_t pi[80], uint8_t beta[64]);

/* ECVRF_verify (RFC 9381 section 5.3, validate_key on, and the policy
 * above): FS_OK and beta when pi is a valid proof of alpha[0..len) under
 * pk; FS_EINVAL otherwise (an invalid key or proof, or NULL pointers), with
 * beta zeroed.  beta may be NULL.  O(len). */
FS_API int fs_vrf_verify(const uint8_t pk[32], const uint8_t *alpha,
                         size_t len, const uint8_t pi[80], uint8_t beta[64]);

/* ECVRF_proof_to_hash (RFC 9381 section 5.2): beta = SHA-512(0x03 || 0x03 ||
 * 8*Gamma || 0x00).  It checks only that Gamma decodes (canonical, on the
 * curve; s below L); it does NOT verify the proof: use fs_vrf_verify unless
 * pi was verified already.  Errors: FS_EINVAL.  O(1). */
FS_API int fs_vrf_proof_to_hash(const uint8_t pi[80], uint8_t beta[64]);

#ifdef __cplusplus
}
#endif

#endif

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

/* ------------------------------------------------------------------------
 * The deal of a 32-byte key
 *
 * The pipeline fairshuf-pf-2 deals with once its key is derived, shared by
 * every scheme: ChaCha20 keystream under key (RFC 8439, nonce 0, counter
 * from 0) as little-endian 64-bit words, Lemire's exact below(n), a
 * Durstenfeld shuffle of the game's fresh deck from the back, the game's
 * layout (docs/provably-fair.md "Roles and steps", step 3).  d is an
 * initialised dealer (its work array is overwritten).  Errors: FS_EINVAL
 * (NULL), FS_ENOMEM.  O(cards), no allocation but the generator's.
 * ---------------------------------------------------------------------- */
FS_API int fs_fair_deal_key(const uint8_t key[32], fs_dealer *d,
                            fs_deal *out);

/* ------------------------------------------------------------------------
 * Scheme fairshuf-vrf-1 (docs/provably-fair.md, "Scheme fairshuf-vrf-1")
 *
 * A table: the dealer's public key, a table name, the game (name, players,
 * decks) and the SHA-256 commitments of 1 to FS_VRF_SEATS_MAX client seeds,
 * recorded (event "table") before any seed is revealed.  Its hands are
 * numbered 0, 1, 2, ...; hand h is dealt from beta = VRF(sk, alpha) with
 *   alpha = "fairshuf-vrf-1" NUL public key (64 lower-case hex) NUL table
 *           NUL game NUL players NUL decks NUL h NUL seed1 TAB seed2 ...
 * (numbers in decimal ASCII, no leading zeros), and the deal is
 * fs_fair_deal_key(beta[0..32)).  A hand record (event "hand", or "void"
 * for a hand that was proven and then not played) carries every input, the
 * alpha, the proof and the deal, so a player checks it alone against the
 * public key; the log's rules (fs_vrf_log_check) close the rest.
 * ---------------------------------------------------------------------- */
#define FS_VRF_SCHEME "fairshuf-vrf-1"
#define FS_VRF_SEATS_MAX 10
#define FS_VRF_NAME_MAX FS_FAIR_CLIENT_SEED_MAX /* table and seeds, bytes */
#define FS_VRF_ALPHA_MAX                                                    \
    (16 + 65 + (FS_VRF_NAME_MAX + 1) * (FS_VRF_SEATS_MAX + 1) + 32 + 3 * 21)
#define FS_VRF_LINE_MAX 32768 /* bytes of one record, without '\n' */

typedef enum fs_vrf_event {
    FS_VRF_TABLE = 1, /* a table opens: key, name, game, commitments */
    FS_VRF_HAND = 2,  /* a hand dealt */
    FS_VRF_VOID = 3   /* a hand proven and not played (logged all the same) */
} fs_vrf_event;

/* One record of a fairshuf-vrf-1 log.  About 10 KiB: reuse it. */
typedef struct fs_vrf_record {
    fs_vrf_event event;
    uint8_t public_key[32];
    char table[FS_VRF_NAME_MAX + 1];
    char game[32];
    unsigned players, decks;
    size_t nseeds;                       /* seeds (hand, void) or
                                            commitments (table) */
    uint8_t commitments[FS_VRF_SEATS_MAX][32];            /* table */
    char client_seeds[FS_VRF_SEATS_MAX][FS_VRF_NAME_MAX + 1]; /* hand */
    uint64_t hand;                                        /* hand, void */
    uint8_t alpha[FS_VRF_ALPHA_MAX];                      /* hand, void */
    size_t alpha_len;
    uint8_t pi[FS_VRF_PROOF_BYTES];                       /* hand, void */
    char deal[FS_FAIR_TSV_MAX + 1];                       /* hand, void */
} fs_vrf_record;

/* SHA-256 of a client seed's bytes: its commitment in a table record. */
FS_API void fs_vrf_seed_commitment(const char *seed, uint8_t out[32]);

/* The alpha of a hand from r's public key, table, game, players, decks,
 * hand and client seeds (above), into alpha[0..cap); *len its length.
 * Errors: FS_EINVAL (NULL, nseeds outside 1..FS_VRF_SEATS_MAX, a table
 * name or seed that breaks the client seed rule of fs_fair_client_seed_ok,
 * unknown game), FS_ERANGE (cap too small; FS_VRF_ALPHA_MAX suffices).
 * O(size). */
FS_API int fs_vrf_alpha(const fs_vrf_record *r, uint8_t *alpha, size_t cap,
                        size_t *len);

/* Proves and deals a hand: r holds the table, game, players (0: the
 * game's default), decks (0: default), hand and client seeds; this sets
 * r->public_key, alpha, pi and deal, and event = FS_VRF_HAND.  d and out
 * are work space (out receives the deal).  Errors: FS_EINVAL (the inputs
 * break a rule above; a table the game does not allow), FS_ENOMEM.
 * O(size + cards): one proof (3.3 M instructions, bench/vrf.sh). */
FS_API int fs_vrf_hand(const uint8_t sk[32], fs_vrf_record *r,
                       fs_dealer *d, fs_deal *out);

/* Checks one hand or void record alone: its public key is pk (when pk is
 * not NULL), its alpha is the one of its fields, pi is a valid proof of
 * alpha under its key, and its deal is the deal of beta.  Returns
 * FS_FAIR_HONEST, or FS_FAIR_DISHONEST with *rule the slug ("other-key",
 * "bad-alpha", "bad-proof", "bad-deal", "malformed") and *why a static
 * English reason (either may be NULL).  O(size + cards): one verification
 * (6.2 M instructions, bench/vrf.sh). */
FS_API fs_fair_verdict fs_vrf_hand_check(const uint8_t *pk,
                                         const fs_vrf_record *r,
                                         fs_dealer *d, fs_deal *out,
                                         const char **rule,
                                         const char **why);

/* Reads one record (line[0..len), no newline): exactly the keys of its
 * event, values as docs/provably-fair.md says.  FS_OK, or FS_EINVAL with a
 * static English *why (may be NULL).  O(len). */
FS_API int fs_vrf_record_parse(const char *line, size_t len,
                               fs_vrf_record *r, const char **why);

/* Writes r in canonical form (keys in the spec's order, no spaces, no
 * newline) into line[0..cap): its length, FS_ERANGE when it does not fit,
 * FS_EINVAL for an unknown event.  O(size). */
FS_API int fs_vrf_record_write(const fs_vrf_record *r, char *line,
                               size_t cap);

/* What a checker of a fairshuf-vrf-1 log reports. */
typedef struct fs_vrf_log_result {
    fs_fair_verdict verdict;
    const char *rule;     /* the first finding's slug (smallest line, line 0
                             after every line), NULL when honest */
    size_t line;          /* its line (0: the log as a whole) */
    char message[512];    /* its message, log bytes escaped as \xNN */
    size_t findings;      /* findings of every kind */
    size_t tables, hands, voids; /* records of each event read */
    size_t proven;        /* hand and void records whose proof and deal
                             were checked and hold */
} fs_vrf_log_result;

/* Checks a whole fairshuf-vrf-1 log (text[0..len), lines ending in '\n',
 * the last may lack it) against the dealer's public key pk, by the rules of
 * docs/provably-fair.md "Scheme fairshuf-vrf-1": each record well formed
 * (else malformed, and the check stops), of pk (other-key), every hand
 * after its table's record (order), the table's game (table-changed) and
 * committed seeds (seed-not-committed), numbered 0, 1, 2, ... per table
 * (hand-number: a skipped or repeated number), its alpha (bad-alpha), proof
 * (bad-proof) and deal (bad-deal); a table name used twice
 * (table-reused); a table abandoned with no hand before the next table
 * (abandoned); no hand at all: empty-log (inconclusive).  mine (may be
 * NULL, nmine records) are hand records the player received: each must be
 * in the log with the same proof and deal (hand-missing, hand-differs).
 * note (may be NULL) gets each finding.  FS_OK (the verdict is in *out),
 * FS_EINVAL (NULL text, pk or out), FS_ENOMEM.  O(len + hands * cards +
 * tables^2). */
FS_API int fs_vrf_log_check(const char *text, size_t len,
                            const uint8_t pk[32], const fs_vrf_record *mine,
                            size_t nmine, fs_fair_note *note, void *ctx,
                            fs_vrf_log_result *out);

#ifdef __cplusplus
}
#endif

#endif

/*
 * fairshuf/certify.h -- the tests a gaming lab runs on a dealer's output.
 *
 * `fairshuf certify` (docs/certify.md) collects a dealer's raw generator
 * output and many deals and hands them to a lab with the tests below, each
 * a statistic with its p-value under "every order of the shoe is equally
 * likely and deals are independent", and one verdict under Holm's
 * family-wise control (fs_holm(), <fairshuf/stats.h>).  The library computes;
 * the CLI writes the files.  docs/certify.md says what each test shows and
 * what it cannot show.
 *
 * Cards are followed by identity, not face: fs_certify_deal() deals through
 * the dealer's own pipeline (copy, shuffle, gather) with every card of the
 * shoe labelled by its index in the fresh shoe, so copies from several
 * decks stay apart and the shuffle's permutation is seen whole.
 */
#ifndef FAIRSHUF_CERTIFY_H
#define FAIRSHUF_CERTIFY_H

#include <fairshuf.h>
#include <fairshuf/cards.h>
#include <fairshuf/stats.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One test's outcome.  name: "position", "first-card", "hand-suits seat 2
 * suit h", ...; kind: the family it belongs to ("deal", "serial", "hand",
 * "permutation", "bits").  normal = 1: statistic is a z score (df 0);
 * else a chi-square with df degrees of freedom.  applicable = 0: not run,
 * why says why (p is NaN then). */
typedef struct fs_cert_test {
    char name[48];
    const char *kind;
    int applicable;
    const char *why;
    int normal;
    double statistic, df, p;
} fs_cert_test;

/* Deals once as fs_dealer_deal() does, and also writes the shoe's order
 * as card identities: order[j] = the fresh-shoe index of the card at shoe
 * position j (order has d->n entries).  *out is the same deal
 * fs_dealer_deal() gives for the same generator state.  Errors as
 * fs_dealer_deal(). */
FS_API int fs_certify_deal(fs_dealer *d, fs_rng *rng, fs_deal *out,
                           uint32_t *order);

typedef struct fs_cert_tally fs_cert_tally;

/* A tally of deals of dealer d (which must outlive it): card by position,
 * successor pairs and the most extreme cell (fs_tally), first and last
 * card, each seat's hand by suit and by rank against the exact
 * hypergeometric law, the relative order of the shoe's first k cards (a
 * permutation test over k! orders, k chosen when results are asked for:
 * the largest k <= 7 with 5 expected per order), and between consecutive
 * deals: first card against first card, same card at the same position,
 * runs of the first card above/below the middle.  FS_EINVAL, FS_ENOMEM. */
FS_API int fs_cert_tally_new(fs_cert_tally **out, const fs_dealer *d);
FS_API void fs_cert_tally_free(fs_cert_tally *t);
/* Adds one deal's order (from fs_certify_deal()).  O(n) (O(n log n) for
 * fs_tally's parts); FS_EINVAL if order is not a permutation. */
FS_API int fs_cert_tally_add(fs_cert_tally *t, const uint32_t *order);
FS_API uint64_t fs_cert_tally_trials(const fs_cert_tally *t);

/* Writes the tests' results to out (up to cap) and sets *count to their
 * number (call with cap 0 to learn it; FS_ERANGE if cap is too small).
 * A test without enough deals for 5 expected per cell is not applicable. */
FS_API int fs_cert_tally_results(const fs_cert_tally *t, fs_cert_test *out,
                                 size_t cap, size_t *count);

/* The bit tests on a generator's raw bytes: monobit (z), byte frequency
 * (chi-square, 255 df), runs of equal bits (z), pairs of consecutive
 * bytes (chi-square, 65535 df; needs 5 expected per pair, 327,680 bytes).
 * Exact null laws for independent fair bits.  Writes FS_CERT_BIT_TESTS
 * results.  FS_EINVAL for n < 16. */
#define FS_CERT_BIT_TESTS 4
FS_API int fs_cert_bits(const uint8_t *buf, size_t n,
                        fs_cert_test out[FS_CERT_BIT_TESTS]);

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_CERTIFY_H */

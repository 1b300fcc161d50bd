/* certify.c -- the tests of <fairshuf/certify.h>: what a gaming lab asks
 * of a dealer's deals and raw bytes (docs/certify.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "fairshuf/certify.h"

#define MIN_EXPECTED 5.0
#define PERM_K 7      /* the permutation test follows the shoe's first 7 */
#define SERIAL_BINS 16
#define MAX_CLASSES 64

typedef struct hand {
    int seat;
    size_t count;
    uint16_t *pos; /* shoe positions of the hand's cards */
} hand;

/* A partition of the cards: suits or ranks (by the card code's letter). */
typedef struct classes {
    unsigned n;
    char label[MAX_CLASSES];
    unsigned size[MAX_CLASSES]; /* cards of the class in the shoe */
    uint8_t *of;                /* fresh index -> class */
} classes;

struct fs_cert_tally {
    const fs_dealer *d;
    unsigned n, k; /* shoe size; cards followed by the permutation test */
    fs_tally *tally;
    uint64_t trials;
    uint64_t *first, *last, *perm, *serial;
    size_t nhands;
    hand *hands;
    classes suits, ranks;
    uint64_t *hist_suit, *hist_rank; /* [hand][class][0..count] */
    uint32_t *prev;                  /* the previous deal's order */
    uint64_t matches, changes;
};

static void classes_free(classes *c)
{
    free(c->of);
}

/* which: 1 = suit (the code's second letter), 0 = rank (its first). */
static int classes_init(classes *c, const fs_dealer *d, int which)
{
    memset(c, 0, sizeof *c);
    c->of = malloc(d->n);
    if (c->of == NULL)
        return FS_ENOMEM;
    for (size_t i = 0; i < d->n; i++) {
        char code[3];
        if (fs_card_code(d->fresh[i], code) != FS_OK)
            return FS_EINVAL;
        char ch = code[which];
        unsigned k = 0;
        while (k < c->n && c->label[k] != ch)
            k++;
        if (k == c->n) {
            if (c->n == MAX_CLASSES)
                return FS_ERANGE;
            c->label[c->n++] = ch;
        }
        c->of[i] = (uint8_t)k;
        c->size[k]++;
    }
    return FS_OK;
}

void fs_cert_tally_free(fs_cert_tally *t)
{
    if (t == NULL)
        return;
    fs_tally_free(t->tally);
    for (size_t h = 0; h < t->nhands; h++)
        free(t->hands[h].pos);
    free(t->hands);
    classes_free(&t->suits);
    classes_free(&t->ranks);
    free(t->first);
    free(t->last);
    free(t->perm);
    free(t->serial);
    free(t->hist_suit);
    free(t->hist_rank);
    free(t->prev);
    free(t);
}

static size_t hist_size(const fs_cert_tally *t, const classes *c)
{
    size_t s = 0;
    for (size_t h = 0; h < t->nhands; h++)
        s += (size_t)c->n * (t->hands[h].count + 1);
    return s;
}

int fs_cert_tally_new(fs_cert_tally **out, const fs_dealer *d)
{
    if (out == NULL || d == NULL || d->game == NULL || d->n < 2)
        return FS_EINVAL;
    *out = NULL;
    fs_cert_tally *t = calloc(1, sizeof *t);
    if (t == NULL)
        return FS_ENOMEM;
    t->d = d;
    t->n = (unsigned)d->n;
    t->k = t->n < PERM_K ? t->n : PERM_K;
    int rc = fs_tally_new(&t->tally, t->n,
                          FS_TEST_POSITION | FS_TEST_PAIRS | FS_TEST_MAXCELL,
                          0);
    if (rc == FS_OK)
        rc = classes_init(&t->suits, d, 1);
    if (rc == FS_OK)
        rc = classes_init(&t->ranks, d, 0);
    if (rc != FS_OK) {
        fs_cert_tally_free(t);
        return rc;
    }
    t->hands = calloc(d->layout.nparts, sizeof *t->hands);
    t->first = calloc(t->n, sizeof *t->first);
    t->last = calloc(t->n, sizeof *t->last);
    t->perm = calloc(fs_factorial(t->k), sizeof *t->perm);
    t->serial = calloc(SERIAL_BINS * SERIAL_BINS, sizeof *t->serial);
    t->prev = malloc(t->n * sizeof *t->prev);
    if (!t->hands || !t->first || !t->last || !t->perm || !t->serial ||
        !t->prev) {
        fs_cert_tally_free(t);
        return FS_ENOMEM;
    }
    for (size_t p = 0; p < d->layout.nparts; p++) {
        const fs_deal_part *part = &d->layout.part[p];
        if (part->seat < 0 || part->count == 0)
            continue;
        hand *h = &t->hands[t->nhands++];
        h->seat = part->seat;
        h->count = part->count;
        h->pos = malloc(part->count * sizeof *h->pos);
        if (h->pos == NULL) {
            fs_cert_tally_free(t);
            return FS_ENOMEM;
        }
        for (size_t i = 0; i < part->count; i++)
            h->pos[i] = (uint16_t)fs_dealer_position(d, p, i);
    }
    t->hist_suit = calloc(hist_size(t, &t->suits), sizeof *t->hist_suit);
    t->hist_rank = calloc(hist_size(t, &t->ranks), sizeof *t->hist_rank);
    if (t->hist_suit == NULL || t->hist_rank == NULL) {
        fs_cert_tally_free(t);
        return FS_ENOMEM;
    }
    *out = t;
    return FS_OK;
}

uint64_t fs_cert_tally_trials(const fs_cert_tally *t)
{
    return t ? t->trials : 0;
}

int fs_certify_deal(fs_dealer *d, fs_rng *rng, fs_deal *out, uint32_t *order)
{
    if (d == NULL || out == NULL || order == NULL)
        return FS_EINVAL;
    /* The dealer's own pipeline on labels: fresh index i as card i. */
    fs_card fresh[FS_DEAL_MAX_CARDS];
    memcpy(fresh, d->fresh, d->n * sizeof fresh[0]);
    for (size_t i = 0; i < d->n; i++)
        d->fresh[i] = (fs_card)i;
    int rc = fs_dealer_deal(d, rng, out);
    memcpy(d->fresh, fresh, d->n * sizeof fresh[0]);
    if (rc != FS_OK)
        return rc;
    const fs_card *shoe = d->identity ? out->cards : d->work;
    for (size_t j = 0; j < d->n; j++)
        order[j] = shoe[j];
    for (size_t j = 0; j < out->ncards; j++)
        out->cards[j] = fresh[out->cards[j]];
    return FS_OK;
}

static void count_hand(uint64_t *hist, const classes *c, const hand *h,
                       const uint32_t *order)
{
    unsigned per[MAX_CLASSES] = {0};
    for (size_t i = 0; i < h->count; i++)
        per[c->of[order[h->pos[i]]]]++;
    for (unsigned k = 0; k < c->n; k++)
        hist[(size_t)k * (h->count + 1) + per[k]]++;
}

static unsigned serial_bin(const fs_cert_tally *t, uint32_t label)
{
    unsigned bins = t->n < SERIAL_BINS ? t->n : SERIAL_BINS;
    return (unsigned)((uint64_t)label * bins / t->n);
}

int fs_cert_tally_add(fs_cert_tally *t, const uint32_t *order)
{
    if (t == NULL || order == NULL)
        return FS_EINVAL;
    int rc = fs_tally_add(t->tally, order);
    if (rc != FS_OK)
        return rc;
    unsigned n = t->n;
    t->first[order[0]]++;
    t->last[order[n - 1]]++;
    /* the relative order of cards 0..k-1: their positions, ranked */
    uint32_t rel[PERM_K];
    unsigned m = 0;
    for (unsigned j = 0; j < n && m < t->k; j++)
        if (order[j] < t->k)
            rel[m++] = order[j];
    uint64_t rank;
    if (fs_lehmer_rank(rel, t->k, &rank) != FS_OK)
        return FS_EINVAL;
    t->perm[rank]++;
    uint64_t *hs = t->hist_suit, *hr = t->hist_rank;
    for (size_t h = 0; h < t->nhands; h++) {
        count_hand(hs, &t->suits, &t->hands[h], order);
        count_hand(hr, &t->ranks, &t->hands[h], order);
        hs += (size_t)t->suits.n * (t->hands[h].count + 1);
        hr += (size_t)t->ranks.n * (t->hands[h].count + 1);
    }
    if (t->trials > 0) {
        unsigned bins = n < SERIAL_BINS ? n : SERIAL_BINS;
        t->serial[serial_bin(t, t->prev[0]) * bins +
                  serial_bin(t, order[0])]++;
        for (unsigned j = 0; j < n; j++)
            t->matches += t->prev[j] == order[j];
        t->changes += (t->prev[0] < n / 2) != (order[0] < n / 2);
    }
    memcpy(t->prev, order, n * sizeof *order);
    t->trials++;
    return FS_OK;
}

/* Pearson's chi-square of counts obs[0..m) against probabilities prob,
 * neighbouring cells pooled until each expects MIN_EXPECTED (the last
 * pooled cell takes what is left). */
static void chisq(fs_cert_test *r, const uint64_t *obs, const double *prob,
                  size_t m, uint64_t trials)
{
    double total = 0;
    for (size_t i = 0; i < m; i++)
        total += prob[i] * (double)trials;
    double stat = 0, o = 0, e = 0, used = 0;
    size_t cells = 0;
    for (size_t i = 0; i < m; i++) {
        o += (double)obs[i];
        e += prob[i] * (double)trials;
        used += prob[i] * (double)trials;
        if (e >= MIN_EXPECTED && total - used >= MIN_EXPECTED) {
            stat += (o - e) * (o - e) / e;
            cells++;
            o = e = 0;
        }
    }
    if (e > 0) {
        stat += (o - e) * (o - e) / e;
        cells++;
    }
    if (cells < 2 || trials == 0) {
        r->applicable = 0;
        r->why = "too few deals for 5 expected in two cells";
        r->p = NAN;
        return;
    }
    r->applicable = 1;
    r->normal = 0;
    r->statistic = stat;
    r->df = (double)(cells - 1);
    r->p = fs_chisq_q(r->df, stat);
}

static void z_test(fs_cert_test *r, double z)
{
    r->applicable = 1;
    r->normal = 1;
    r->statistic = z;
    r->df = 0;
    r->p = fs_normal_p2(z);
}

static void not_run(fs_cert_test *r, const char *why)
{
    r->applicable = 0;
    r->why = why;
    r->p = NAN;
}

static double lchoose(double a, double b)
{
    return lgamma(a + 1) - lgamma(b + 1) - lgamma(a - b + 1);
}

static fs_cert_test *slot(fs_cert_test *out, size_t cap, size_t *k,
                          fs_cert_test *scratch, const char *kind);

/* The hand tests of one partition (suits or ranks): the number of the
 * class's cards in each hand against the hypergeometric law. */
static void hand_tests(const fs_cert_tally *t, const classes *c,
                       const uint64_t *hist, const char *what,
                       fs_cert_test *out, size_t cap, size_t *k, double *prob)
{
    fs_cert_test scratch;
    for (size_t h = 0; h < t->nhands; h++) {
        size_t cnt = t->hands[h].count;
        for (unsigned cl = 0; cl < c->n; cl++, hist += cnt + 1) {
            fs_cert_test *r = slot(out, cap, k, &scratch, "hand");
            if (t->hands[h].seat == (int)t->d->players)
                snprintf(r->name, sizeof r->name, "hand dealer %s %c", what,
                         c->label[cl]);
            else
                snprintf(r->name, sizeof r->name, "hand seat %d %s %c",
                         t->hands[h].seat + 1, what, c->label[cl]);
            double K = c->size[cl], n = t->n;
            for (size_t j = 0; j <= cnt; j++)
                prob[j] = (double)j > K || (double)(cnt - j) > n - K
                              ? 0
                              : exp(lchoose(K, (double)j) +
                                    lchoose(n - K, (double)(cnt - j)) -
                                    lchoose(n, (double)cnt));
            chisq(r, hist, prob, cnt + 1, t->trials);
        }
    }
}

/* out[*k] when it fits, else a scratch record; counts it either way. */
static fs_cert_test *slot(fs_cert_test *out, size_t cap, size_t *k,
                          fs_cert_test *scratch, const char *kind)
{
    fs_cert_test *r = *k < cap ? &out[*k] : scratch;
    (*k)++;
    memset(r, 0, sizeof *r);
    r->kind = kind;
    return r;
}

/* The relative order of the shoe's first kk cards over its kk! orders,
 * kk the largest (<= t->k) whose orders each expect MIN_EXPECTED: the
 * counts of the t->k! orders kept, folded onto the first kk cards. */
static int perm_test(const fs_cert_tally *t, fs_cert_test *r, double *prob)
{
    unsigned kk = t->k;
    while (kk > 2 && (double)t->trials < MIN_EXPECTED * fs_factorial(kk))
        kk--;
    snprintf(r->name, sizeof r->name, "order of the first %u cards", kk);
    uint64_t orders = fs_factorial(kk), full = fs_factorial(t->k);
    uint64_t *obs = calloc(orders, sizeof *obs);
    if (obs == NULL)
        return FS_ENOMEM;
    uint32_t perm[PERM_K], sub[PERM_K];
    for (uint64_t q = 0; q < full; q++) {
        fs_lehmer_unrank(q, t->k, perm);
        unsigned s = 0;
        for (unsigned j = 0; j < t->k; j++)
            if (perm[j] < kk)
                sub[s++] = perm[j];
        uint64_t rank;
        fs_lehmer_rank(sub, kk, &rank);
        obs[rank] += t->perm[q];
    }
    for (uint64_t q = 0; q < orders; q++)
        prob[q] = 1.0 / (double)orders;
    chisq(r, obs, prob, orders, t->trials);
    free(obs);
    return FS_OK;
}

/* Between consecutive deals: first card after first card (binned), the
 * same card at the same position, runs of the first card below/above the
 * middle of the shoe. */
static void serial_tests(const fs_cert_tally *t, fs_cert_test *out,
                         size_t cap, size_t *k, double *prob)
{
    fs_cert_test scratch, *r = slot(out, cap, k, &scratch, "serial");
    size_t bins = t->n < SERIAL_BINS ? t->n : SERIAL_BINS;
    snprintf(r->name, sizeof r->name, "first card after first card");
    for (size_t a = 0; a < bins; a++)
        for (size_t b = 0; b < bins; b++) {
            double pa = 0, pb = 0;
            for (uint32_t x = 0; x < t->n; x++) {
                pa += serial_bin(t, x) == a;
                pb += serial_bin(t, x) == b;
            }
            prob[a * bins + b] = pa / t->n * pb / t->n;
        }
    double steps = (double)t->trials - 1; /* pairs of consecutive deals */
    if (steps < 1)
        not_run(r, "needs two deals");
    else
        chisq(r, t->serial, prob, bins * bins, t->trials - 1);
    r = slot(out, cap, k, &scratch, "serial");
    snprintf(r->name, sizeof r->name, "same card, same position");
    if (steps < 1)
        not_run(r, "needs two deals");
    else /* fixed points of a uniform permutation: mean 1, variance 1 */
        z_test(r, ((double)t->matches - steps) / sqrt(steps));
    r = slot(out, cap, k, &scratch, "serial");
    snprintf(r->name, sizeof r->name, "runs of the first card");
    /* below the middle with probability p; a change between neighbours
     * with q = 2p(1-p); neighbouring changes covary by p(1-p)(1-2q) */
    double p = (double)(t->n / 2) / t->n, q = 2 * p * (1 - p);
    double var = steps * q * (1 - q) +
                 2 * (steps - 1) * p * (1 - p) * (1 - 2 * q);
    if (steps < 2)
        not_run(r, "needs three deals");
    else
        z_test(r, ((double)t->changes - steps * q) / sqrt(var));
}

static const char *const tally_names[] = {"card by position",
                                          "successor pairs", "max cell"};
static const fs_test tally_tests[] = {FS_TEST_POSITION, FS_TEST_PAIRS,
                                      FS_TEST_MAXCELL};

int fs_cert_tally_results(const fs_cert_tally *t, fs_cert_test *out,
                          size_t cap, size_t *count)
{
    if (t == NULL || count == NULL || (out == NULL && cap > 0))
        return FS_EINVAL;
    size_t most = t->n + 2;
    for (size_t h = 0; h < t->nhands; h++)
        most = most > t->hands[h].count + 1 ? most : t->hands[h].count + 1;
    if (most < 5040) /* PERM_K! orders; SERIAL_BINS^2 cells */
        most = 5040;
    double *prob = malloc(most * sizeof *prob);
    if (prob == NULL)
        return FS_ENOMEM;
    size_t k = 0;
    fs_cert_test scratch, *r;
    for (size_t i = 0; i < 3; i++) {
        r = slot(out, cap, &k, &scratch, "deal");
        snprintf(r->name, sizeof r->name, "%s", tally_names[i]);
        fs_test_result tr;
        fs_tally_result(t->tally, tally_tests[i], &tr);
        if (!tr.applicable) {
            not_run(r, tr.why);
        } else {
            r->applicable = 1;
            r->normal = tr.normal;
            r->statistic = tr.statistic;
            r->df = tr.df;
            r->p = tr.p;
        }
    }
    for (size_t i = 0; i < t->n; i++)
        prob[i] = 1.0 / t->n;
    r = slot(out, cap, &k, &scratch, "deal");
    snprintf(r->name, sizeof r->name, "first card");
    chisq(r, t->first, prob, t->n, t->trials);
    r = slot(out, cap, &k, &scratch, "deal");
    snprintf(r->name, sizeof r->name, "last card");
    chisq(r, t->last, prob, t->n, t->trials);
    r = slot(out, cap, &k, &scratch, "permutation");
    if (perm_test(t, r, prob) != FS_OK) {
        free(prob);
        return FS_ENOMEM;
    }
    serial_tests(t, out, cap, &k, prob);
    hand_tests(t, &t->suits, t->hist_suit, "suit", out, cap, &k, prob);
    hand_tests(t, &t->ranks, t->hist_rank, "rank", out, cap, &k, prob);
    free(prob);
    *count = k;
    return k > cap ? (cap == 0 ? FS_OK : FS_ERANGE) : FS_OK;
}

int fs_cert_bits(const uint8_t *buf, size_t n,
                 fs_cert_test out[FS_CERT_BIT_TESTS])
{
    if (buf == NULL || out == NULL || n < 16)
        return FS_EINVAL;
    uint64_t bytes[256] = {0}, ones = 0, changes = 0;
    uint64_t *pairs = calloc(65536, sizeof *pairs);
    if (pairs == NULL)
        return FS_ENOMEM;
    int last = buf[0] & 1;
    for (size_t i = 0; i < n; i++) {
        bytes[buf[i]]++;
        ones += (uint64_t)__builtin_popcount(buf[i]);
        for (int b = 0; b < 8; b++) {
            int bit = buf[i] >> b & 1;
            changes += bit != last;
            last = bit;
        }
        if (i % 2 == 1)
            pairs[buf[i - 1] << 8 | buf[i]]++;
    }
    memset(out, 0, FS_CERT_BIT_TESTS * sizeof *out);
    double bits = 8.0 * (double)n;
    snprintf(out[0].name, sizeof out[0].name, "bits: monobit");
    z_test(&out[0], (2.0 * (double)ones - bits) / sqrt(bits));
    double *prob = malloc(65536 * sizeof *prob);
    if (prob == NULL) {
        free(pairs);
        return FS_ENOMEM;
    }
    for (int i = 0; i < 256; i++)
        prob[i] = 1.0 / 256;
    snprintf(out[1].name, sizeof out[1].name, "bits: byte frequency");
    chisq(&out[1], bytes, prob, 256, n);
    /* changes between neighbouring bits: Binomial(bits - 1, 1/2) */
    snprintf(out[2].name, sizeof out[2].name, "bits: runs");
    z_test(&out[2], ((double)changes - (bits - 1) / 2) / sqrt((bits - 1) / 4));
    snprintf(out[3].name, sizeof out[3].name, "bits: byte pairs");
    if ((double)(n / 2) < MIN_EXPECTED * 65536) {
        not_run(&out[3], "needs 655,360 bytes for 5 expected per pair");
    } else {
        for (int i = 0; i < 65536; i++)
            prob[i] = 1.0 / 65536;
        chisq(&out[3], pairs, prob, 65536, n / 2);
    }
    for (int i = 0; i < FS_CERT_BIT_TESTS; i++)
        out[i].kind = "bits";
    free(prob);
    free(pairs);
    return FS_OK;
}

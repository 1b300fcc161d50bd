/* batched.c -- Durstenfeld with batched bounded draws: the same swaps as
 * the plain form, but one 64-bit word serves up to
 * FS_BATCH_MAX consecutive indices (batch.h).  Exact: each batch is one
 * Lemire draw on the product of its bounds.  The stream differs from
 * one-fs__below-per-index, so the named `durstenfeld` keeps the plain form
 * and FS_ALG_AUTO uses this one (docs/stream.md §4, "auto").
 *
 * The loops run one range of constant batch size k at a time, so that k
 * is a compile-time constant and the decode is unrolled; the ranges are
 * exactly where fs__batch_k() gives that k, so this is only a faster way
 * to run the rule in batch.h. */
#include "batch.h"
#include "../rng/xoshiro.h"

/* Largest first bound of a batch with k = K + 1 (fs__batch_k): a batch of
 * size K is taken while its first bound exceeds NEXT_LIMIT(K). */
#define LIMIT_1 (UINT64_C(1) << 30)
#define LIMIT_2 (UINT64_C(1) << 20)
#define LIMIT_3 (UINT64_C(1) << 15)
#define LIMIT_4 (UINT64_C(1) << 12)
#define LIMIT_5 (UINT64_C(1) << 10)
#define LIMIT_6 0

/* The next word of the stream into lo, with the read pointer p and end e
 * of w's buffer held in locals by the caller (refilled through w). */
#define NEXT_WORD(lo, p, e, w)                                            \
    do {                                                                  \
        if (FS_LIKELY((p) < (e))) {                                       \
            memcpy(&(lo), (p), 8);                                        \
            (p) += 8;                                                     \
        } else {                                                          \
            (w)->p = (p);                                                 \
            (lo) = fs__wsrc_u64(w);                                       \
            (p) = (w)->p;                                                 \
            (e) = (w)->e;                                                 \
        }                                                                 \
    } while (0)

/* Lemire's acceptance on the product: a batch whose final low word is
 * below 2^64 mod prod is redrawn -- unless the generator has failed, whose
 * zeros would be rejected forever (the caller reports its error). */
#define REJECTED(lo, prod, w)                                             \
    (FS_UNLIKELY((lo) < (prod)) && (lo) < fs__lemire_threshold64(prod) && \
     (w)->rng->error == FS_OK)

/* What each form adds to the loop, named by the form's suffix (FORM_x##SUF;
 * the plain form's suffix is empty, and adds nothing): its extra
 * parameters (ARGS) and what its callers pass for them (PASS), its step
 * once the batch's word is read (LOOK) and once the batch is accepted
 * (STEP).  Pasted names rather than macro arguments, so that no argument
 * of DEFINE_DOWN has commas of its own (cppcheck, `make lint`, could not
 * expand those). */
#define FORM_ARGS
#define FORM_STEP
#define FORM_LOOK(K)
#define FORM_PASS
#define FORM_ENTER
#define FORM_EXIT
#define FORM_WORD(lo) NEXT_WORD(lo, p, e, w)
#define FORM_ARGS_pf , uintptr_t *pf, uintptr_t pfe
#define FORM_STEP_pf                                                      \
    if (*pf < pfe) {                                                      \
        __builtin_prefetch((const void *)*pf, 1, 3);                      \
        *pf += 64;                                                        \
    }
#define FORM_LOOK_pf(K)
#define FORM_PASS_pf , &q, qe
#define FORM_ENTER_pf
#define FORM_EXIT_pf
#define FORM_WORD_pf(lo) NEXT_WORD(lo, p, e, w)
/* The _la forms (arrays beyond L2) also prefetch the elements the batch
 * LA batches ahead will swap: its word is already in the buffer, so its
 * indices are decoded as if no batch between is rejected (a rare
 * rejection only makes a prefetch miss; the draws are not changed). */
enum { LA = 8 };
/* Arrays of more bytes than this take the _la forms. */
#define LOOK_MIN_BYTES ((size_t)1 << 20)
#define FORM_ARGS_la
#define FORM_STEP_la
#define FORM_PASS_la
#define FORM_ENTER_la
#define FORM_EXIT_la
#define FORM_WORD_la(lo) NEXT_WORD(lo, p, e, w)
#define FORM_LOOK_la(K)                                                   \
    if (FS_LIKELY((size_t)(e - p) >= 8 * LA) && b > (uint64_t)LA * (K) + (K)) { \
        uint64_t x, bb = b - (uint64_t)LA * (K);                          \
        memcpy(&x, p + 8 * (LA - 1), 8);                                  \
        FS_UNROLL                                                         \
        for (unsigned t = 0; t < (K); t++) {                              \
            fs_u128 m = (fs_u128)x * (bb - t);                            \
            __builtin_prefetch(&a[(uint64_t)(m >> 64)], 1, 3);            \
            x = (uint64_t)m;                                              \
        }                                                                 \
    }

/* The _xo forms (xoshiro256**, arrays up to LOOK_MIN_BYTES) run the
 * generator inline once its buffer is used up, from the state in locals
 * (rng->st on entry and exit): the same words a refill would have put in
 * the buffer, but each made beside the swaps that wait on the L2, not in a
 * 4 KiB burst between them.  Taken only when the buffer holds whole words,
 * so that the buffer ends where a word ends; the buffer is then left empty
 * (pos = end) and the next refill continues from the state.  Arrays of
 * fewer than XO_MIN elements take the plain forms: there the _xo forms'
 * calls cost more than a refill saves (n = 300: 1.04x the plain forms'
 * time; n = 1e3: 0.89x). */
#define XO_MIN 512
#define FORM_ARGS_xo , uint64_t *xs
#define FORM_STEP_xo
#define FORM_LOOK_xo(K)
#define FORM_PASS_xo , xs
#define FORM_ENTER_xo uint64_t x0 = xs[0], x1 = xs[1], x2 = xs[2], x3 = xs[3];
#define FORM_EXIT_xo                                                      \
    xs[0] = x0;                                                           \
    xs[1] = x1;                                                           \
    xs[2] = x2;                                                           \
    xs[3] = x3;
#define FORM_WORD_xo(lo)                                                  \
    do {                                                                  \
        if (FS_UNLIKELY(p < e)) {                                         \
            memcpy(&(lo), p, 8);                                          \
            p += 8;                                                       \
        } else {                                                          \
            (lo) = fs__xoshiro256ss_next(&x0, &x1, &x2, &x3);             \
        }                                                                 \
    } while (0)

/* Descending: for i = n-1 down to 1 in batches of k = fs__batch_k(i+1)
 * (capped at i), bounds i+1, i, ..., i+2-k; digit t swaps a[i-t] with
 * a[j_t].
 *
 * One function per (element type, K) runs the whole range where the rule
 * gives K, with the word pointer in locals: a tight loop the compiler
 * keeps in registers (the generic form spilled to the stack and ran ~1.5x
 * slower).  Returns the next i.  The _pf forms also prefetch one 64-byte
 * line of [*pf, pfe) per batch (the bucket shuffle's next bucket, brought
 * in while this one is shuffled in cache); the draws and swaps are the
 * same. */
#define DEFINE_DOWN(T, K, SUF)                                            \
    static size_t down_##T##_##K##SUF(T *a, size_t i,                     \
                                      fs__wsrc *w FORM_ARGS##SUF)         \
    {                                                                     \
        const unsigned char *p = w->p, *e = w->e;                         \
        FORM_ENTER##SUF                                                   \
        while (i >= (K) && (uint64_t)i + 1 > LIMIT_##K) {                 \
            uint64_t b = (uint64_t)i + 1, lo, j[K], prod = b;             \
            FS_UNROLL                                                     \
            for (unsigned t = 1; t < (K); t++)                            \
                prod *= b - t;                                            \
            FORM_WORD##SUF(lo);                                           \
            FORM_LOOK##SUF(K)                                             \
            FS_UNROLL                                                     \
            for (unsigned t = 0; t < (K); t++) {                          \
                fs_u128 m = (fs_u128)lo * (uint64_t)(b - t);              \
                j[t] = (uint64_t)(m >> 64);                               \
                lo = (uint64_t)m;                                         \
            }                                                             \
            if (REJECTED(lo, prod, w))                                    \
                continue; /* redraw the whole batch */                    \
            FORM_STEP##SUF                                                \
            FS_UNROLL                                                     \
            for (unsigned t = 0; t < (K); t++) {                          \
                T tmp = a[i - t];                                         \
                a[i - t] = a[j[t]];                                       \
                a[j[t]] = tmp;                                            \
            }                                                             \
            i -= (K);                                                     \
        }                                                                 \
        FORM_EXIT##SUF                                                    \
        w->p = p;                                                         \
        w->e = e;                                                         \
        return i;                                                         \
    }
#define DEFINE_DOWN_K(T, K)                                               \
    DEFINE_DOWN(T, K, )                                                   \
    DEFINE_DOWN(T, K, _pf)                                                \
    DEFINE_DOWN(T, K, _la)                                                \
    DEFINE_DOWN(T, K, _xo)
#define DEFINE_DOWN_ALL(T)                                                \
    DEFINE_DOWN_K(T, 1)                                                   \
    DEFINE_DOWN_K(T, 2)                                                   \
    DEFINE_DOWN_K(T, 3)                                                   \
    DEFINE_DOWN_K(T, 4)                                                   \
    DEFINE_DOWN_K(T, 5)                                                   \
    DEFINE_DOWN_K(T, 6)
DEFINE_DOWN_ALL(uint64_t)
DEFINE_DOWN_ALL(uint32_t)
DEFINE_DOWN_ALL(fs__e16)

/* SUF: empty, _pf, _la or _xo. */
#define DOWN_TYPED(T, SUF)                                                \
    do {                                                                  \
        T *a = (T *)(void *)base;                                         \
        i = down_##T##_1##SUF(a, i, &w FORM_PASS##SUF);                   \
        i = down_##T##_2##SUF(a, i, &w FORM_PASS##SUF);                   \
        i = down_##T##_3##SUF(a, i, &w FORM_PASS##SUF);                   \
        i = down_##T##_4##SUF(a, i, &w FORM_PASS##SUF);                   \
        i = down_##T##_5##SUF(a, i, &w FORM_PASS##SUF);                   \
        i = down_##T##_6##SUF(a, i, &w FORM_PASS##SUF);                   \
        if (i > 0) { /* the last i < 6 indices: one batch of k = i */     \
            uint64_t j[FS_BATCH_MAX];                                     \
            unsigned k = (unsigned)i;                                     \
            fs__batch_down(&w, (uint64_t)i + 1, k, j);                    \
            for (unsigned t = 0; t < k; t++) {                            \
                T tmp = a[i - t];                                         \
                a[i - t] = a[j[t]];                                       \
                a[j[t]] = tmp;                                            \
            }                                                             \
        }                                                                 \
    } while (0)

/* The _xo forms' loops for T in a function of their own (never inlined):
 * inlined into fs__durstenfeld_batched_pf they took the compiler's
 * inlining budget from the other forms, whose loops became calls. */
#define DEFINE_XO(T)                                                      \
    __attribute__((noinline)) static void xo_##T(unsigned char *base,     \
                                                 size_t i, fs__wsrc *wp,  \
                                                 uint64_t *xs)            \
    {                                                                     \
        fs__wsrc w = *wp;                                                 \
        DOWN_TYPED(T, _xo);                                               \
        *wp = w;                                                          \
    }
DEFINE_XO(uint64_t)
DEFINE_XO(uint32_t)
DEFINE_XO(fs__e16)

/* The typed loops for T in the form the call needs: prefetching the next
 * bucket (pflen), looking ahead (arrays beyond L2), xoshiro256** inline,
 * or plain. */
#define DOWN_FORM(T)                                                      \
    do {                                                                  \
        if (pflen)                                                        \
            DOWN_TYPED(T, _pf);                                           \
        else if (look)                                                    \
            DOWN_TYPED(T, _la);                                           \
        else if (xo)                                                      \
            xo_##T(base, i, &w, xs);                                      \
        else                                                              \
            DOWN_TYPED(T, );                                              \
    } while (0)

void fs__durstenfeld_batched_pf(unsigned char *base, size_t n, size_t size,
                                fs_rng *rng, const void *pf, size_t pflen)
{
    if (n < 2)
        return;
    fs__wsrc w;
    fs__wsrc_open(&w, rng);
    size_t i = n - 1;
    /* addresses as integers: the last step may pass the region's end */
    uintptr_t q = (uintptr_t)pf, qe = q + pflen;
    int look = n * size > LOOK_MIN_BYTES;
    /* xoshiro256** inline (the _xo forms) when the buffer holds whole
     * words and the array is large enough to repay the forms' calls */
    uint64_t *xs = rng->st.u64;
    int xo = rng->vt == &fs__xoshiro256ss_vt && n >= XO_MIN &&
             (rng->s->end - rng->s->pos) % 8 == 0;
    if (size == 8 && ((uintptr_t)base & 7) == 0)
        DOWN_FORM(uint64_t);
    else if (size == 4 && ((uintptr_t)base & 3) == 0)
        DOWN_FORM(uint32_t);
    else if (size == 16 && ((uintptr_t)base & 7) == 0)
        DOWN_FORM(fs__e16);
    else {
        while (i > 0) {
            unsigned k = fs__batch_k((uint64_t)i + 1);
            if (k > i)
                k = (unsigned)i;
            uint64_t j[FS_BATCH_MAX];
            fs__batch_down(&w, (uint64_t)i + 1, k, j);
            for (unsigned t = 0; t < k; t++, i--)
                if (j[t] != i)
                    fs__swap(base + i * size, base + j[t] * size, size);
            if (q < qe) {
                __builtin_prefetch((const void *)q, 1, 3);
                q += 64;
            }
        }
    }
    fs__wsrc_close(&w);
}

void fs__durstenfeld_batched(unsigned char *base, size_t n, size_t size,
                             fs_rng *rng)
{
    fs__durstenfeld_batched_pf(base, n, size, rng, NULL, 0);
}

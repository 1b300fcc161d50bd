/*
 * fairshuf/lines.h -- the line-shuffling engine behind `fairshuf lines`
 * (a GNU shuf drop-in).  Three pieces:
 *
 *   1. fs_gnurand: a random source that consumes bytes exactly like GNU
 *      coreutils' randint (shuf --random-source), so the same bytes give
 *      the same draws as GNU shuf 9.1.
 *   2. fs_fyperm: a forward Fisher-Yates permutation of [0, n) produced one
 *      value at a time (dense array, or a hash map when only a few of a huge
 *      n are wanted).  The first h values do not depend on how many more
 *      are asked for, and they are exactly GNU's randperm when drawn from an
 *      fs_gnurand.
 *   3. fs_lines_shuffle: the keyed shuffle of lines.  Line i (0-based,
 *      after the kept header) gets the 64-bit key fs_lines_key(K, i, 0);
 *      lines are written in increasing key order, equal keys ordered by
 *      level 1, 2, ... keys of the same lines.  Every order is exactly
 *      equally likely given ideal keys, and the output depends only on
 *      (K, input): not on the memory budget, the thread count, or whether
 *      the input is a pipe.  Input larger than the budget is bucketed by
 *      key prefix into temporary files (unlinked at once) and merged by
 *      bucket order, so the output is the same bytes.  docs/lines.md is the
 *      specification.
 */
#ifndef FAIRSHUF_LINES_H
#define FAIRSHUF_LINES_H

#include <stddef.h>
#include <stdint.h>

#include <fairshuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * GNU-compatible random source
 *
 * A draw in [0, n) works as GNU's randint_genmax(n - 1): bytes are
 * appended big-endian to an accumulator until its range covers n; values
 * above the largest multiple of n are rejected (keeping the remainder as
 * entropy); an accepted value leaves its quotient as leftover entropy for
 * the next draw.  n = 1 consumes nothing.  Uniform for every n.
 * ---------------------------------------------------------------------- */
typedef struct fs_gnurand fs_gnurand;

/* A source reading file descriptor fd (not closed by fs_gnurand_free), or,
 * with fd < 0, the memory buf[0..len) (not copied; must outlive it).
 * FS_ENOMEM on allocation failure. */
FS_API int fs_gnurand_new(fs_gnurand **out, int fd, const void *buf, size_t len);
FS_API void fs_gnurand_free(fs_gnurand *g);

/* A uniform value in [0, n), n >= 1.  Errors: FS_EINVAL (n == 0), FS_EEOF
 * (the source ran out: GNU's "end of file"), FS_EIO (read error, errno
 * set).  After an error every later draw fails the same way. */
FS_API int fs_gnurand_below(fs_gnurand *g, uint64_t n, uint64_t *out);

/* Bytes consumed so far (for tests and docs). */
FS_API uint64_t fs_gnurand_used(const fs_gnurand *g);

/* Where draws come from: gnu if non-NULL, else rng (NULL = the thread's
 * default generator) through fs_below semantics. */
typedef struct fs_draws {
    fs_gnurand *gnu;
    fs_rng *rng;
} fs_draws;

/* One draw in [0, n) from d.  Same errors as the source. */
FS_API int fs_draws_below(const fs_draws *d, uint64_t n, uint64_t *out);

/* ------------------------------------------------------------------------
 * Forward Fisher-Yates, one value at a time
 *
 * Step i (0-based) draws j uniform in [i, n) and swaps positions i and j
 * of the identity array, then yields position i.  The first h values are a
 * uniform ordered h-subset of [0, n).  Memory: 4 bytes per element when
 * n <= 2^32 and the dense form is chosen, else a hash map of O(h) entries;
 * dense is chosen when h > n/64 or n < 128Ki (GNU's rule).  Time O(h).
 * ---------------------------------------------------------------------- */
typedef struct fs_fyperm fs_fyperm;

/* n elements, at most h values will be taken (h <= n).
 * Errors: FS_EINVAL (h > n), FS_ENOMEM. */
FS_API int fs_fyperm_new(fs_fyperm **out, uint64_t n, uint64_t h);
FS_API void fs_fyperm_free(fs_fyperm *p);

/* The next count values into out.  Errors: FS_EINVAL (more than h values
 * in total), FS_ENOMEM (sparse map growth), the source's errors. */
FS_API int fs_fyperm_next(fs_fyperm *p, const fs_draws *d, uint64_t *out,
                   size_t count);

/* ------------------------------------------------------------------------
 * GNU shuf's reservoir sampling
 *
 * GNU shuf 9.1 with -n K reads a pipe, or a regular file larger than
 * 8 MiB, by reservoir sampling: it keeps K lines in K slots, then permutes
 * the slots with its randperm (fs_fyperm over min(n, K) slots, K values).
 * fs_lines_reservoir replays that sampling over n lines already read, with
 * exactly GNU's draws (line t >= K draws j in [0, t] and replaces slot j
 * when j < K; one more draw, for t = n, at end of input; none when n < K).
 * map[s] receives the line in slot s for s < *kept = min(n, K); map must
 * hold that many entries.  K = 0 draws nothing.  O(n) draws.
 * Errors: FS_EINVAL (NULL arguments), the source's errors (FS_EEOF, ...).
 * ---------------------------------------------------------------------- */
FS_API int fs_lines_reservoir(const fs_draws *d, uint64_t n, uint64_t k,
                              uint64_t *map, uint64_t *kept);

/* ------------------------------------------------------------------------
 * Keys of the keyed shuffle
 *
 * fs_lines_key(K, i, L) is the little-endian 64-bit word at byte 8*(i mod
 * 2^35) of the ChaCha20 (RFC 8439) keystream with key K, block counter
 * from 0, and nonce words (i >> 35, L, 0) (little-endian 32-bit each).
 * For L = 0 this is word i of the chacha20 stream of fs_rng_new("chacha20",
 * seed) when K = fs_seed_to_key(seed): the key of line i is the i-th
 * fs_rng_u64 of the seeded stream.
 * ---------------------------------------------------------------------- */
FS_API uint64_t fs_lines_key(const uint8_t K[32], uint64_t i, uint32_t level);

/* count consecutive keys starting at index first, level L, into out.
 * O(count); uses whole ChaCha20 blocks. */
FS_API void fs_lines_keys(const uint8_t K[32], uint64_t first, uint32_t level,
                   uint64_t *out, size_t count);

/* The keyed order of n items: order[r] is the item of rank r, items sorted
 * by fs_lines_key(K, i, 0), equal keys by level 1, 2, ...  This is the
 * order fs_lines_shuffle writes lines in (the reference for tests, and the
 * engine of `-e`).  O(n log n) time, O(n) memory.  FS_ENOMEM. */
FS_API int fs_lines_order(const uint8_t K[32], uint64_t n, uint64_t *order);

/* ------------------------------------------------------------------------
 * Reading and splitting
 * ---------------------------------------------------------------------- */

/* Counts the lines of buf[0..len) ended by delim; a final unterminated line
 * counts too.  O(len), memchr speed. */
FS_API uint64_t fs_lines_count(const void *buf, size_t len, unsigned char delim);

/* Reads all of fd into a malloc'd buffer that ends with delim (added if the
 * input lacks it; an empty input stays empty).  *buf receives it (free()
 * it), *len its length.  Errors: FS_EIO (errno set), FS_ENOMEM. */
FS_API int fs_lines_read_all(int fd, unsigned char delim, unsigned char **buf,
                      size_t *len);

/* Fills starts[0..n] with the offset of each line of buf (which ends with
 * delim) and starts[n] = len, where n = fs_lines_count(buf, len, delim).
 * starts must hold n + 1 entries. */
FS_API void fs_lines_index(const unsigned char *buf, size_t len,
                    unsigned char delim, size_t *starts);

/* ------------------------------------------------------------------------
 * The keyed shuffle
 * ---------------------------------------------------------------------- */
typedef enum fs_lines_where {
    FS_LINES_NOWHERE = 0,
    FS_LINES_INPUT,   /* reading the input */
    FS_LINES_OUTPUT,  /* opening or writing the output */
    FS_LINES_TEMP,    /* a temporary file in tmpdir */
    FS_LINES_INPUT_CHANGED /* a large regular file, read twice rather than
                              held in memory, changed between the reads */
} fs_lines_where;

typedef enum fs_lines_phase {
    FS_LINES_READING = 0, /* done = input bytes read, total = 0 */
    FS_LINES_SPILLING,    /* done = input bytes read, total = 0 */
    FS_LINES_WRITING      /* done = lines written, total = lines to write */
} fs_lines_phase;

typedef struct fs_lines_config {
    unsigned char delim;   /* '\n' or '\0' */
    uint64_t head;         /* write at most this many shuffled lines */
    uint64_t header;       /* the first `header` lines are written first,
                              in place, and are not shuffled */
    size_t memory;         /* budget in bytes; 0 = fs_lines_default_memory() */
    const char *tmpdir;    /* NULL = $TMPDIR, else /tmp */
    unsigned threads;      /* 0 or 1 = one thread */
    uint8_t key[32];       /* K of the keyed order */
    /* Called once, after all input has been read and before the first
     * output byte: returns the descriptor to write to, or -1 with errno
     * set (reported as FS_EIO at FS_LINES_OUTPUT). */
    int (*open_output)(void *arg);
    void *output_arg;
    /* Optional; called now and then (never per line). */
    void (*progress)(void *arg, fs_lines_phase phase, uint64_t done,
                     uint64_t total);
    void *progress_arg;
} fs_lines_config;

typedef struct fs_lines_result {
    fs_lines_where where; /* where an error happened */
    int err;              /* errno of an FS_EIO error */
    uint64_t lines;       /* shuffled lines in the input (header excluded) */
    uint64_t written;     /* shuffled lines written */
    uint64_t spilled;     /* bytes written to temporary files */
    uint64_t out_bytes;   /* output bytes handed to write(), the failed
                             write included */
    unsigned depth;       /* bucket levels used on disk (0 = in memory) */
} fs_lines_result;

/* A budget from the machine: half the available memory, at least 64 MiB. */
FS_API size_t fs_lines_default_memory(void);

/* Shuffles the lines read from fd (see the top of this file) and writes
 * them to the descriptor open_output returns.  Memory stays within about
 * c->memory (plus fixed buffers of a few MiB); at most 64 + (number of
 * bucket splits) temporary files are open at once.  open_output is called
 * only after all input is read and every temporary file is written (every
 * bucket split made), so a full disk or too many open files fail before
 * any output, and with no other thread of the library running (it may end
 * the process); what can still fail after output began (reading a temporary
 * file back, memory, the output itself) leaves a prefix only, with an
 * error returned.
 * A regular file of at least 256 MiB (from fd's position) whose first MiB
 * has lines of 64 bytes or more on average is not held in memory: it is
 * read four times (pread; fd's position is left at the end), each read
 * keeping the lines of one quarter of the key space (with 16 bytes of key
 * and index each), so memory is about a quarter of the file; the output
 * is the same bytes.  There open_output is called after the first read,
 * and a file that shrinks, whose lines move, or whose modification time
 * moves while its size does not (an edit in place) between the reads is
 * an error (FS_EIO at FS_LINES_INPUT_CHANGED; a file that grows is taken
 * as appended to, and what grows past the size measured at the start is
 * not read).  When the output turns out to be
 * that file, the file is read once the usual way instead.
 * c->head == 0 reads only the c->header header lines, writes them, and
 * reads nothing more (with no header it reads nothing; the output is
 * still opened).  With
 * c->head < 2^20 the input is streamed keeping only candidate lines
 * (O(head) lines of memory, c->memory unused).
 * Errors: FS_EINVAL (bad config), FS_ENOMEM, FS_EIO (res->where, res->err
 * say which file and why). */
FS_API int fs_lines_shuffle(int fd, const fs_lines_config *c, fs_lines_result *res);

/* One slice of fs_lines_shuffle's output, for `slices` workers sharing
 * the job (fairshuf-mpi's ranks on one node): writes exactly the lines
 * whose key k has (k * slices) >> 64 == slice (128-bit product), in the
 * keyed order, so that slices 0, 1, ..., slices - 1 written one after the
 * other are fs_lines_shuffle's output byte for byte.  The header lines
 * are written by slice 0 only (every slice skips them as input); with
 * c->head, a slice writes the global ranks [below, below + its lines) that
 * fall in [0, c->head), where `below` is the number of lines whose keys
 * lie in earlier slices (known once every line is keyed).  res->lines
 * counts the slice's lines, res->written those it wrote.  slices == 1 is
 * fs_lines_shuffle.
 * Cost: every slice reads and keys the whole input, and holds and sorts
 * about 1/slices of it.  A regular file of at least 256 MiB / (4 slices)
 * with long lines (as above) is read ceil(4 / slices) times, each read
 * keeping at most a quarter of the key space's records (a slice of 2:
 * read twice, a quarter of the key space each time); other input is held as for fs_lines_shuffle (in memory: the
 * text and the slice's records; over c->memory: the slice's lines go to
 * temporary files; c->head < 2^20: O(head) lines of the slice).
 * Errors: those of fs_lines_shuffle; FS_EINVAL also for slice >= slices
 * (so slices == 0). */
FS_API int fs_lines_shuffle_slice(int fd, const fs_lines_config *c,
                                  unsigned slice, unsigned slices,
                                  fs_lines_result *res);

/* Why fs_lines_shuffle returned `status`, for a message after the name of
 * what failed (res->where: the input, the output, a temporary file in
 * tmpdir): for FS_EIO the system's words for res->err, or, at
 * FS_LINES_INPUT_CHANGED, "file changed as we read it (a large file is
 * read more than once, not held in memory)"; otherwise fs_strerror(status).
 * res may be NULL.  A static string: never free it. */
FS_API const char *fs_lines_strerror(int status, const fs_lines_result *res);

/* The same over lines already in memory: buf[0..len) must end with delim
 * (or be empty).  buf is not modified.  Always in memory: len must be
 * below 2^32 - 16 (else FS_ERANGE); c->memory and c->tmpdir are unused. */
FS_API int fs_lines_shuffle_buf(const unsigned char *buf, size_t len,
                         const fs_lines_config *c, fs_lines_result *res);


/* ------------------------------------------------------------------------
 * Data formats around the engine (docs/lines.md, "Data work")
 *
 * Compressed streams: gzip (zlib) and zstd (libzstd).  A source decodes
 * its input when the first bytes are gzip's (1f 8b) or zstd's
 * (28 b5 2f fd) magic, and with csv = 1 frames RFC 4180 records (a quoted
 * field may hold line feeds) as NUL-terminated items, so the engine run
 * with delim '\0' moves whole records.  A sink undoes the framing, cuts
 * the shuffled stream into parts, and compresses each part.  Both work in
 * a thread of their own, joined to the engine by a pipe; neither changes
 * the order: the seeded order is that of the decoded records.
 * ---------------------------------------------------------------------- */
typedef enum fs_lines_codec {
    FS_CODEC_PLAIN = 0,
    FS_CODEC_GZIP,
    FS_CODEC_ZSTD
} fs_lines_codec;

/* The codec whose magic bytes begin p[0..n) (FS_CODEC_PLAIN if none). */
FS_API fs_lines_codec fs_lines_codec_sniff(const void *p, size_t n);
/* The codec a file name asks for: ".gz" gzip, ".zst" zstd, else plain. */
FS_API fs_lines_codec fs_lines_codec_of_name(const char *path);
/* "gzip", "zstd" or "plain". */
FS_API const char *fs_lines_codec_name(fs_lines_codec c);

typedef struct fs_lines_source fs_lines_source;

typedef struct fs_lines_source_opts {
    int csv;              /* frame RFC 4180 records (NUL-terminated) */
    unsigned char delim;  /* without csv: the record end ('\n' or '\0') */
    /* Optional: called on the source's thread with every record, header
     * included, numbered from 0: its bytes with its end (a CSV record:
     * framed, ending with NUL; a last line without its delimiter gets
     * one).  A return other than FS_OK stops the source with FS_EINVAL
     * and *why (if why is set) as the reason. */
    int (*record)(void *arg, uint64_t i, const unsigned char *rec,
                  size_t len);
    void *record_arg;
    const char *const *why;
    int no_pipe;          /* the hook takes every record: the pipe stays
                             empty (the reader sees end of input) */
} fs_lines_source_opts;

/* Looks at the first bytes of fd (pread on a regular file, tee(2) on a
 * pipe: nothing consumed; other inputs: read and passed on).  Plain input
 * without csv or hook: *src = NULL and *rfd = fd (no thread, no copy).
 * Otherwise a thread decodes (and frames) fd into a pipe and *rfd is its
 * read end, owned by the source.  Errors: FS_EINVAL, FS_ENOMEM, FS_EIO
 * (no pipe). */
FS_API int fs_lines_source_open(int fd, const fs_lines_source_opts *o,
                                fs_lines_source **src, int *rfd);
/* Reads what is left of *rfd (discarded), waits for the thread, and
 * returns its status: FS_OK, FS_EIO (*err: errno; EBADMSG with *why set
 * when the data is damaged: "gzip data is corrupt: ...", "zstd data is
 * truncated", "CSV input ends inside a quoted field", "CSV input holds a
 * NUL byte"), FS_ENOMEM.  A damaged stream ends the pipe early: call this
 * before using the output of a run.  NULL src: FS_OK.  err, why may be
 * NULL. */
FS_API int fs_lines_source_end(fs_lines_source *src, int *err,
                               const char **why);
/* The codec found (FS_CODEC_PLAIN for NULL). */
FS_API fs_lines_codec fs_lines_source_codec(const fs_lines_source *src);
/* Ends (as above) and frees the source and its pipe; NULL is a no-op. */
FS_API void fs_lines_source_free(fs_lines_source *src);

typedef struct fs_lines_part {
    int fd;               /* where the part goes (not closed) */
    fs_lines_codec codec; /* written plain, gzip (level 6) or zstd (3) */
    uint64_t records;     /* shuffled records for this part (the last part
                             takes any beyond the sum) */
} fs_lines_part;

typedef struct fs_lines_sink_config {
    unsigned char delim;  /* the engine's record end: '\n' or '\0' */
    int csv;              /* records are framed CSV: the NUL is dropped */
    uint64_t header;      /* the first `header` records go to every part */
    size_t nparts;
    const fs_lines_part *parts;
    /* Optional: the part of shuffled record number i (0-based, header
     * excluded) whose first bytes are rec[0..len) (at least up to its end
     * when it fits the sink's 1 MiB buffer).  NULL: by parts[].records. */
    size_t (*choose)(void *arg, uint64_t i, const unsigned char *rec,
                     size_t len);
    void *choose_arg;
} fs_lines_sink_config;

typedef struct fs_lines_sink fs_lines_sink;

/* Starts the sink; *wfd is the pipe to write the engine's output to (owned
 * by the sink).  Errors: FS_EINVAL, FS_ENOMEM, FS_EIO (no pipe). */
FS_API int fs_lines_sink_open(const fs_lines_sink_config *c,
                              fs_lines_sink **sink, int *wfd);
/* Closes *wfd, waits until every part is written (compressed streams
 * ended), and returns FS_OK or FS_EIO (*err: errno of the failed write) /
 * FS_ENOMEM.  counts (nparts entries, or NULL) receives the shuffled
 * records each part got.  NULL sink: FS_OK. */
FS_API int fs_lines_sink_end(fs_lines_sink *sink, int *err, uint64_t *counts);
FS_API void fs_lines_sink_free(fs_lines_sink *sink);

/* ------------------------------------------------------------------------
 * Fields and field values (--stratify, --weights, --group-by)
 * ---------------------------------------------------------------------- */
typedef struct fs_lines_field {
    size_t col;           /* 0-based column, once resolved */
    const char *name;     /* a column name (not copied), or NULL */
    int resolved;
    int csv;              /* CSV fields (quotes removed, "" read as ") */
    unsigned char sep;    /* otherwise: the separator (as sort -t) */
} fs_lines_field;

/* spec: a 1-based column number ("3"), or a column name, resolved later
 * against the header record.  Errors: FS_EINVAL (empty, "0"), FS_ERANGE
 * (a number too large). */
FS_API int fs_lines_field_parse(const char *spec, int csv, unsigned char sep,
                                fs_lines_field *f);
/* Finds f->name among the fields of the header record hdr[0..len) (its
 * end excluded).  A number is resolved already.  FS_ENOTFOUND, FS_ENOMEM. */
FS_API int fs_lines_field_resolve(fs_lines_field *f, const unsigned char *hdr,
                                  size_t len);
/* The field of record rec[0..len) (its end, LF, CRLF or NUL, excluded)
 * into out (at most cap bytes); returns its length and sets *found = 0
 * when the record has fewer fields.  O(len). */
FS_API size_t fs_lines_field_get(const fs_lines_field *f,
                                 const unsigned char *rec, size_t len,
                                 unsigned char *out, size_t cap, int *found);

/* A table of distinct values, numbered from 0 in order of first
 * appearance, with how often each was added.  Expected O(len) per call. */
typedef struct fs_lines_values fs_lines_values;
FS_API int fs_lines_values_new(fs_lines_values **v);
FS_API void fs_lines_values_free(fs_lines_values *v);
/* Counts one occurrence of val[0..len); *id: its number.  FS_ENOMEM. */
FS_API int fs_lines_values_add(fs_lines_values *v, const void *val,
                               size_t len, uint64_t *id);
/* The number of a value added before, or FS_ENOTFOUND. */
FS_API int fs_lines_values_find(const fs_lines_values *v, const void *val,
                                size_t len, uint64_t *id);
FS_API uint64_t fs_lines_values_count(const fs_lines_values *v, uint64_t id);
FS_API uint64_t fs_lines_values_size(const fs_lines_values *v);

/* ------------------------------------------------------------------------
 * Splitting (--split, --stratify)
 *
 * n items cut into k parts in proportion to w[0..k): part i gets
 * floor(n w_i / W), and the items left over go one each to the parts with
 * the largest remainders n w_i mod W (ties: the lower part).  So a part's
 * size is within 1 of n w_i / W, and the sizes add up to n.  Stratified:
 * each stratum (value of a field) is cut the same way on its own, its
 * j-th item in shuffled order going to fs_lines_split_part(n_s, j, ...),
 * so every part holds each value's share to within 1 record.
 * ---------------------------------------------------------------------- */
/* FS_EINVAL: k == 0, NULL arrays, all weights 0.  O(k^2) at worst. */
FS_API int fs_lines_split_sizes(uint64_t n, const uint64_t *w, size_t k,
                                uint64_t *sizes);
/* The part of item j (0-based) of n: scratch holds k entries. */
FS_API size_t fs_lines_split_part(uint64_t n, uint64_t j, const uint64_t *w,
                                  size_t k, uint64_t *scratch);

/* ------------------------------------------------------------------------
 * Weighted sampling of records (--weights=FIELD -n K)
 *
 * Data record i (0-based, header excluded) of weight w_i > 0 gets the
 * Efraimidis-Spirakis key fs_weighted_key(fs_lines_key(K, i, 0), w_i)
 * (<fairshuf/weighted.h>): the word is the i-th of the seeded chacha20
 * stream, so the selection is that of fs_weighted_sample() with that
 * generator.  The K smallest keys are kept (O(K) memory for the keys; the
 * records' bytes in memory up to half of `memory`, then in an unlinked
 * temporary file in tmpdir) and written in increasing key order, ties by
 * index: successive weighted draws without replacement.  Weight 0: never
 * drawn.  The selection depends only on (K, input).
 * ---------------------------------------------------------------------- */
typedef struct fs_lines_wsample fs_lines_wsample;
/* memory 0: fs_lines_default_memory(); tmpdir NULL: $TMPDIR or /tmp.
 * FS_EINVAL, FS_ENOMEM. */
FS_API int fs_lines_wsample_new(fs_lines_wsample **s, const uint8_t K[32],
                                uint64_t k, size_t memory,
                                const char *tmpdir);
/* Offers record i with weight w (its bytes rec[0..len) are copied if it is
 * kept).  Records must come in increasing i.  Errors: FS_EINVAL (w
 * negative, NaN or infinite), FS_ENOMEM, FS_EIO (temporary file; see
 * fs_lines_wsample_write's err).  O(log K). */
FS_API int fs_lines_wsample_add(fs_lines_wsample *s, uint64_t i, double w,
                                const unsigned char *rec, size_t len);
/* Writes the kept records in draw order through emit (its error stops
 * it).  FS_EIO: *err (if set) is errno of the temporary file's failure. */
FS_API int fs_lines_wsample_write(fs_lines_wsample *s,
                                  int (*emit)(void *arg,
                                              const unsigned char *p,
                                              size_t n),
                                  void *arg, int *err);
/* Records kept so far; whether their bytes went to disk. */
FS_API uint64_t fs_lines_wsample_kept(const fs_lines_wsample *s);
FS_API int fs_lines_wsample_on_disk(const fs_lines_wsample *s);
FS_API void fs_lines_wsample_free(fs_lines_wsample *s);

/* ------------------------------------------------------------------------
 * Groups of records (--group-by=FIELD [--shuffle-within])
 *
 * Records with equal field values form a group (wherever they are in the
 * input); groups are numbered by first appearance, g = 0, 1, ..., and
 * written whole in the keyed order fs_lines_order(Kg, G) with the group
 * key Kg = fs_lines_groups_key(K): every order of the G groups is equally
 * likely, whatever their sizes.  Within a group: input order, or with
 * shuffle_within the keyed order of the records' own keys
 * fs_lines_key(K, i, 0) (i: the data record's number), ties by levels
 * 1, 2, ...  Memory: 32 bytes per record plus the value table; the
 * records' bytes stay in memory up to half of `memory`, then go to an
 * unlinked temporary file in tmpdir (the output is the same).
 * ---------------------------------------------------------------------- */
typedef struct fs_lines_groups fs_lines_groups;
/* memory 0: fs_lines_default_memory().  FS_EINVAL, FS_ENOMEM. */
FS_API int fs_lines_groups_new(fs_lines_groups **g, const uint8_t K[32],
                               int shuffle_within, size_t memory,
                               const char *tmpdir);
/* Adds the next data record rec[0..len) of group value val[0..vlen).
 * FS_ENOMEM, FS_EIO (temporary file: fs_lines_groups_write's err). */
FS_API int fs_lines_groups_add(fs_lines_groups *g, const void *val,
                               size_t vlen, const unsigned char *rec,
                               size_t len);
/* Writes every record in the order above through emit; a return other
 * than FS_OK from emit stops the writing and is returned (so a caller
 * that wants only a head of the order returns its own code).  O(n log n).
 * Call it once. */
FS_API int fs_lines_groups_write(fs_lines_groups *g,
                                 int (*emit)(void *arg,
                                             const unsigned char *p,
                                             size_t n),
                                 void *arg, int *err);
/* The group-aware split (--split --group-by): the same order, the G groups
 * cut into k parts in proportion to w[0..k) by fs_lines_split_sizes(G, w,
 * k) -- the first sizes[0] groups in the order go to part 0, the next
 * sizes[1] to part 1, ... -- so no group is in two parts and part i holds
 * floor or ceil of G w_i / W groups (its share of records is only as even
 * as the group sizes allow).  Each record is emitted with its part.
 * Errors: FS_EINVAL (k == 0 or k > 64, w NULL or all 0), those of
 * fs_lines_groups_write.  Call it once, instead of fs_lines_groups_write. */
FS_API int fs_lines_groups_write_parts(fs_lines_groups *g, const uint64_t *w,
                                       size_t k,
                                       int (*emit)(void *arg, size_t part,
                                                   const unsigned char *p,
                                                   size_t n),
                                       void *arg, int *err);
/* Kg = SHA-256("fairshuf lines groups v1:" + 64 lowercase hex digits of
 * K) (fs_seed_to_key of that string).  FS_OK. */
FS_API int fs_lines_groups_key(const uint8_t K[32], uint8_t Kg[32]);
FS_API uint64_t fs_lines_groups_count(const fs_lines_groups *g);
FS_API int fs_lines_groups_on_disk(const fs_lines_groups *g);
FS_API void fs_lines_groups_free(fs_lines_groups *g);

#ifdef __cplusplus
}
#endif

#endif /* FAIRSHUF_LINES_H */

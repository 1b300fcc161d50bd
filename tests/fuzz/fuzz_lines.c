/* fuzz_lines.c -- a fuzz target over the `lines` option parser and the
 * line engine (splitter, in-memory sort, out-of-core spill, GNU random
 * source).  One input is split in two: the head becomes an argv for
 * lines_parse(), the rest is the text (and the random source).
 *
 * Two drivers: tests/unit/test_lines_fuzz.c runs it for a bounded time in
 * the suite (deterministic mutations, ASan/UBSan in the sanitizer build);
 * with clang, libFuzzer runs it without bound:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -DFUZZ_LIBFUZZER \
 *     -D_GNU_SOURCE -Iinclude -Ilib -Iprograms tests/fuzz/fuzz_lines.c \
 *     build/libfairshuf.a -lsodium -lpthread -o build/fuzz_lines
 *   build/fuzz_lines -max_total_time=60
 * Invariants checked: the parser never crashes and leaves consistent
 * options; the engine writes exactly the input bytes (plus a final
 * delimiter), in memory and on disk alike. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../common/cli.c"
#include "../../programs/lines_opts.c"
#include "../../programs/lines_quote.c"
#include "fairshuf/lines.h"

#define FUZZ_CHECK(x)                                                    \
    do {                                                                 \
        if (!(x)) {                                                      \
            fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #x,       \
                    __FILE__, __LINE__);                                 \
            abort();                                                     \
        }                                                                \
    } while (0)

static void fuzz_parser(const uint8_t *data, size_t len)
{
    char *copy = malloc(len + 1);
    memcpy(copy, data, len);
    copy[len] = '\0';
    char *argv[34];
    int argc = 0;
    argv[argc++] = (char *)"shuf";
    /* arguments are separated by 0x01 bytes (NUL would end the copy) */
    char *p = copy;
    while (argc < 33) {
        argv[argc++] = p;
        char *q = strchr(p, '\x01');
        if (q == NULL)
            break;
        *q = '\0';
        p = q + 1;
    }
    argv[argc] = NULL;
    lines_opts o;
    char msg[512];
    int try_help;
    int rc = lines_parse(argc, argv, &o, 1, msg, sizeof msg, &try_help);
    if (rc == 0 && !o.help && !o.version) {
        FUZZ_CHECK(!(o.echo && o.have_range));
        FUZZ_CHECK(o.noperands >= 0 && o.noperands < argc);
        if (o.have_range)
            FUZZ_CHECK(o.lo <= o.hi + 1 || o.hi == UINT64_MAX);
    } else if (rc != 0) {
        /* GNU's errors are 1; the data options' usage errors are 2 */
        FUZZ_CHECK(rc == CLI_FAIL ||
                   (rc == CLI_USAGE &&
                    (o.split || o.stratify || o.weights || o.group_by ||
                     o.shuffle_within || strstr(msg, "separator") ||
                     strstr(msg, "--split"))));
    }
    free(copy);
}

static int fuzz_out;
static int give_out(void *arg)
{
    (void)arg;
    return fuzz_out;
}

static size_t engine_once(const uint8_t *text, size_t len, unsigned char d,
                          size_t memory, uint64_t head, uint64_t header)
{
    int in = memfd_create("fuzz-in", 0);
    fuzz_out = memfd_create("fuzz-out", 0);
    FUZZ_CHECK(in >= 0 && fuzz_out >= 0);
    FUZZ_CHECK(write(in, text, len) == (ssize_t)len);
    lseek(in, 0, SEEK_SET);
    fs_lines_config c;
    memset(&c, 0, sizeof c);
    c.delim = d;
    c.head = head;
    c.header = header;
    c.memory = memory;
    c.threads = 2;
    c.open_output = give_out;
    memcpy(c.key, "fuzz key fuzz key fuzz key fuzz!", 32);
    fs_lines_result res;
    FUZZ_CHECK(fs_lines_shuffle(in, &c, &res) == FS_OK);
    size_t out = (size_t)lseek(fuzz_out, 0, SEEK_END);
    close(in);
    close(fuzz_out);
    return out;
}

static void fuzz_engine(const uint8_t *data, size_t len)
{
    if (len == 0)
        return;
    unsigned char d = (data[0] & 1) ? '\n' : (unsigned char)data[0];
    const uint8_t *text = data + 1;
    size_t tl = len - 1;
    size_t expect = tl + (tl > 0 && text[tl - 1] != d);
    uint64_t n = fs_lines_count(text, tl, d);
    FUZZ_CHECK(engine_once(text, tl, d, 0, UINT64_MAX, 0) == expect);
    FUZZ_CHECK(engine_once(text, tl, d, 4096, UINT64_MAX, 0) == expect);
    FUZZ_CHECK(engine_once(text, tl, d, 4096, UINT64_MAX, 3) == expect);
    if (n > 0)
        FUZZ_CHECK(engine_once(text, tl, d, 4096, n - 1, 0) < expect ||
                   n == 0);
    /* the GNU random source over the same bytes: never out of range */
    fs_gnurand *g;
    FUZZ_CHECK(fs_gnurand_new(&g, -1, data, len) == FS_OK);
    for (uint64_t m = 1; m < 1000; m = m * 3 + 1) {
        uint64_t v;
        int rc = fs_gnurand_below(g, m, &v);
        if (rc != FS_OK) {
            FUZZ_CHECK(rc == FS_EEOF);
            break;
        }
        FUZZ_CHECK(v < m);
    }
    fs_gnurand_free(g);
}

int fuzz_lines_one(const uint8_t *data, size_t len);
int fuzz_lines_one(const uint8_t *data, size_t len)
{
    /* the first 0x02 byte separates the argv part from the text */
    const uint8_t *sep = memchr(data, 0x02, len);
    size_t al = sep ? (size_t)(sep - data) : len;
    fuzz_parser(data, al);
    if (sep)
        fuzz_engine(sep + 1, len - al - 1);
    return 0;
}

#ifdef FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    return fuzz_lines_one(data, len);
}
#endif

/* main.c -- fairshuf-mpi: the distributed shuffle's command line.
 *   mpirun -np P fairshuf-mpi lines --seed=S --output=PATTERN FILE...
 *   mpirun -np P fairshuf-mpi array N --seed=S --output=PATTERN
 * Usage errors are reported by rank 0 only (every rank sees the same
 * arguments); a runtime failure is reported by every rank, naming the
 * rank that failed and why.  docs/distributed.md, fairshuf-mpi(1). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "out.h"
#include "pending.h"
#include "fairshuf/lines.h"
#include "lines.h"

static const char usage_text[] =
    "Usage: mpirun -np P fairshuf-mpi lines [OPTION]... -o PATTERN FILE...\n"
    "  or:  mpirun -np P fairshuf-mpi array N [OPTION]... -o PATTERN\n"
    "Shuffle across the P ranks of an MPI job, writing one output shard per\n"
    "rank.  The shards concatenated in rank order are a uniformly random\n"
    "permutation; with --seed=S, byte-identical to\n"
    "'cat FILE... | fairshuf lines --seed=S' (with the same -n, --header,\n"
    "-z) whatever P is.\n"
    "\n"
    "lines: the lines of the FILEs' concatenation (regular files, visible\n"
    "at the same paths on every rank); each rank reads a byte range of it\n"
    "split at line boundaries.\n"
    "array: the integers 0..N-1, a range per rank, permuted by the\n"
    "library's fs_mpi_permutation (fairshuf_mpi.h); one per line.\n"
    "\n"
    "  -o, --output=PATTERN  shard names; %d is the rank, %% a percent sign\n"
    "      --seed=S          reproducible order (the key of fairshuf lines);\n"
    "                        default: a key from rank 0's operating system\n"
    "  -n, --head-count=K    lines: write only the first K lines of the\n"
    "                        shuffle (the shards concatenated are the head\n"
    "                        of the full order; later ranks may be empty)\n"
    "      --header=N        lines: the input's first N lines go first,\n"
    "                        unshuffled, at the start of rank 0's shard\n"
    "                        (as fairshuf lines --header; -n does not count\n"
    "                        them)\n"
    "  -z, --zero-terminated line delimiter is NUL, not newline (lines)\n"
    "      --csv             lines: the items are CSV records (RFC 4180: a\n"
    "                        quoted field may hold newlines), kept whole;\n"
    "                        as fairshuf lines --csv\n"
    "      --memory=SIZE     per-rank memory budget (K, M, G suffixes); larger\n"
    "                        shares are exchanged in pieces and sorted from\n"
    "                        temporary files (default: half the available\n"
    "                        memory shared by the ranks on the node)\n"
    "  -T, --temporary-directory=DIR  temporary files go in DIR, not $TMPDIR\n"
    "                        or /tmp; they are unlinked at once\n"
    "      --balanced        exactly balanced shard sizes (array; lines and\n"
    "                        array shards otherwise differ by chance)\n"
    "      --stats           per-rank figures on stderr (lines, bytes, times,\n"
    "                        peak memory)\n"
    "      --help            display this help and exit\n"
    "      --version         output version information and exit\n"
    "\n"
    "Shards are written under temporary names and renamed only when every\n"
    "rank has finished; on failure none is left.  Exit status: 0 success,\n"
    "1 failure (on any rank), 2 usage error.  Manual: fairshuf-mpi(1).\n";

typedef struct opts {
    const char *cmd, *output, *seed, *tmpdir;
    int zero, csv, stats, balanced, local_only, elements, fail_rank;
    uint64_t memory, n, chunk, piece, runs;
    uint64_t head, header;   /* lines: -n (UINT64_MAX: all), --header */
    int have_head;
    char **files;
    int nfiles;
} opts;

static int rank_, P_;

/* Rank 0 reports; every rank returns the status. */
static int usage_error(const char *fmt, const char *arg)
    __attribute__((format(printf, 1, 0)));
static int usage_error(const char *fmt, const char *arg)
{
    if (rank_ == 0) {
        fprintf(stderr, "%s: ", cli_prog);
        fprintf(stderr, fmt, arg);
        fprintf(stderr, "\nTry '%s --help' for more information.\n", cli_prog);
    }
    return CLI_USAGE;
}

enum { O_SEED = 256, O_HEADER, O_MEMORY, O_STATS, O_BALANCED, O_HELP, O_VERSION,
       O_FAIL_READ, O_LOCAL_ONLY, O_CHUNK, O_RUNS, O_CSV, O_ELEMENTS,
       O_PIECE };

static int parse(int argc, char **argv, opts *o)
{
    static const struct option longs[] = {
        {"output", required_argument, NULL, 'o'},
        {"seed", required_argument, NULL, O_SEED},
        {"zero-terminated", no_argument, NULL, 'z'},
        {"head-count", required_argument, NULL, 'n'},
        {"header", required_argument, NULL, O_HEADER},
        {"csv", no_argument, NULL, O_CSV},
        {"temporary-directory", required_argument, NULL, 'T'},
        {"memory", required_argument, NULL, O_MEMORY},
        {"stats", no_argument, NULL, O_STATS},
        {"balanced", no_argument, NULL, O_BALANCED},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        /* test hooks, not in --help: tests/cli/mpi.bats */
        {"test-fail-read", required_argument, NULL, O_FAIL_READ},
        {"test-local-only", no_argument, NULL, O_LOCAL_ONLY},
        {"test-elements", no_argument, NULL, O_ELEMENTS},
        {"test-chunk", required_argument, NULL, O_CHUNK},
        {"test-runs", required_argument, NULL, O_RUNS},
        {"test-piece", required_argument, NULL, O_PIECE},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->fail_rank = -1;
    o->head = UINT64_MAX;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:zT:n:", longs, NULL)) != -1) {
        uint64_t v;
        int rc;
        switch (c) {
        case 'o': o->output = optarg; break;
        case 'z': o->zero = 1; break;
        case O_CSV: o->csv = 1; break;
        case 'T': o->tmpdir = optarg; break;
        case O_SEED: o->seed = optarg; break;
        case 'n': /* as fairshuf lines: the smallest -n wins; a count
                     past 2^64 - 1 is no limit */
            rc = cli_parse_u64(optarg, &v);
            if (rc == -1)
                return usage_error("invalid line count: '%s'", optarg);
            if (rc == 0 && v < o->head)
                o->head = v;
            o->have_head = 1;
            break;
        case O_HEADER:
            rc = cli_parse_u64(optarg, &v);
            if (rc == -1)
                return usage_error("invalid header line count: '%s'", optarg);
            o->header = rc == -2 ? UINT64_MAX : v;
            break;
        case O_STATS: o->stats = 1; break;
        case O_BALANCED: o->balanced = 1; break;
        case O_LOCAL_ONLY: o->local_only = 1; break;
        case O_ELEMENTS: o->elements = 1; break;
        case O_MEMORY:
            if (cli_parse_size(optarg, &o->memory) != 0 || o->memory == 0)
                return usage_error("invalid memory size: '%s'", optarg);
            break;
        case O_FAIL_READ:
            if (cli_parse_u64(optarg, &v) != 0 || v > 1000000)
                return usage_error("invalid rank: '%s'", optarg);
            o->fail_rank = (int)v;
            break;
        case O_CHUNK:
            if (cli_parse_u64(optarg, &v) != 0 || v == 0 || v > (1u << 30))
                return usage_error("invalid chunk: '%s'", optarg);
            o->chunk = v;
            break;
        case O_PIECE: /* bytes per piece of the exchange in rounds */
            if (cli_parse_u64(optarg, &v) != 0 || v == 0 || v > (1u << 30))
                return usage_error("invalid piece: '%s'", optarg);
            o->piece = v;
            break;
        case O_RUNS:
            if (cli_parse_u64(optarg, &o->runs) != 0 || o->runs == 0)
                return usage_error("invalid runs: '%s'", optarg);
            break;
        case O_HELP:
            if (rank_ == 0)
                fputs(usage_text, stdout);
            return -1;
        case O_VERSION:
            if (rank_ == 0)
                printf("%s (fairshuf) %s\n", cli_prog, fs_version());
            return -1;
        case '?':
            if (optopt)
                return usage_error("invalid option -- '%s'",
                                   (const char[]){(char)optopt, 0});
            return usage_error("unrecognized option '%s'", argv[optind - 1]);
        default: /* ':' */
            return usage_error("option '%s' requires an argument",
                               argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "missing command: lines or array");
    o->cmd = argv[optind++];
    if (strcmp(o->cmd, "lines") == 0) {
        o->files = argv + optind;
        o->nfiles = argc - optind;
        if (o->nfiles == 0)
            return usage_error("%s", "lines: missing FILE operand");
        if (o->csv && o->zero)
            return usage_error("%s", "lines: --csv records end at newlines: "
                               "not with -z");
        for (int i = 0; i < o->nfiles; i++)
            if (strcmp(o->files[i], "-") == 0)
                return usage_error("%s", "lines: standard input cannot be "
                                   "split between ranks: name files");
    } else if (strcmp(o->cmd, "array") == 0) {
        if (o->have_head || o->header)
            return usage_error("%s", "array: -n and --header apply to lines");
        if (o->csv)
            return usage_error("%s", "array: --csv applies to lines");
        if (optind >= argc)
            return usage_error("%s", "array: missing N");
        if (cli_parse_u64(argv[optind], &o->n) != 0)
            return usage_error("array: invalid N: '%s'", argv[optind]);
        if (optind + 1 < argc)
            return usage_error("array: extra operand '%s'", argv[optind + 1]);
    } else {
        return usage_error("unknown command '%s' (lines or array)", o->cmd);
    }
    static char name[4096];
    if (o->output == NULL)
        return usage_error("%s", "missing --output=PATTERN");
    if (fs_mpi__shard_name(o->output, 0, name, sizeof name) != 0)
        return usage_error("invalid --output pattern '%s': it needs exactly "
                           "one %%d (the rank) and no other %% but %%%%",
                           o->output);
    if (cli_seed_problem(o->seed))
        return usage_error("%s", cli_seed_problem(o->seed));
    return 0;
}

/* Every rank: one line naming the failing rank and why. */
static int report(const fs_mpi_lines_result *res)
{
    if (res->bad_rank == rank_)
        fprintf(stderr, "%s: rank %d: %s\n", cli_prog, rank_, res->msg);
    else
        fprintf(stderr, "%s: rank %d: stopped: rank %d failed: %s\n",
                cli_prog, rank_, res->bad_rank, res->msg);
    return CLI_FAIL;
}

static void stats(const opts *o, const fs_mpi_lines_result *res)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(stderr,
            "%s: rank %d of %d: in %llu lines %llu bytes; out %llu lines "
            "%llu bytes; sent %llu received %llu spilled %llu bytes; rounds "
            "%llu; read %.3f keys %.3f exchange %.3f spill %.3f sort %.3f "
            "write %.3f total %.3f s; peak RSS %ld KiB\n",
            cli_prog, rank_, P_, (unsigned long long)res->lines_in,
            (unsigned long long)res->bytes_in,
            (unsigned long long)res->lines_out,
            (unsigned long long)res->bytes_out,
            (unsigned long long)res->sent, (unsigned long long)res->received,
            (unsigned long long)res->spilled,
            (unsigned long long)res->rounds, res->t_read, res->t_keys,
            res->t_exchange, res->t_spill, res->t_sort, res->t_write,
            res->t_total, ru.ru_maxrss);
    (void)o;
}

/* The array command: the integers 0..N-1, rank r's [N r/P, N (r+1)/P),
 * permuted by fs_mpi_permutation, the shard is one decimal per line.  The
 * test hook --test-elements holds them as an array of 64-bit integers and
 * calls fs_mpi_shuffle instead (the same output); --test-runs=R does R
 * shuffles with the seeds S:0 .. S:R-1 in one job, each line "RUN VALUE"
 * (mpirun's start-up dominates small runs). */
static int run_array(const opts *o, const uint8_t key[32],
                     fs_mpi_lines_result *res)
{
    uint64_t lo = (uint64_t)((unsigned __int128)o->n * (unsigned)rank_ / (unsigned)P_);
    uint64_t hi = (uint64_t)((unsigned __int128)o->n * (unsigned)(rank_ + 1) / (unsigned)P_);
    size_t n = o->elements ? (size_t)(hi - lo) : 0;
    uint64_t *v = malloc((n ? n : 1) * sizeof *v), *out = NULL;
    size_t m = 0;
    fs_mpi__shard sh;
    memset(&sh, 0, sizeof sh);
    sh.fd = -1;
    FILE *f = NULL;
    int rc = v ? fs_mpi__shard_open(&sh, o->output, rank_, res->msg,
                                    sizeof res->msg)
               : FS_ENOMEM;
    if (rc == FS_ENOMEM)
        snprintf(res->msg, sizeof res->msg, "memory exhausted");
    else if (rc == FS_OK && (f = fdopen(dup(sh.fd), "w")) == NULL) {
        rc = FS_EIO;
        snprintf(res->msg, sizeof res->msg, "%s: %s", sh.tmp, strerror(errno));
    }
    int st, bad = fs_mpi__agree(MPI_COMM_WORLD, rc, &st);
    if (bad >= 0)
        goto fail;
    for (size_t i = 0; i < n; i++)
        v[i] = lo + i;
    static out_buf ob;
    out_init(&ob, f);
    unsigned flags = (o->balanced ? FS_MPI_BALANCED : 0) |
                     (o->local_only ? FS_MPI__LOCAL_ONLY : 0);
    uint64_t runs = o->runs ? o->runs : 1;
    for (uint64_t j = 0; j < runs; j++) {
        uint8_t k[32];
        memcpy(k, key, 32);
        if (o->runs) {
            char seed[4096];
            snprintf(seed, sizeof seed, "%s:%llu", o->seed ? o->seed : "",
                     (unsigned long long)j);
            fs_seed_to_key(seed, k);
        }
        rc = o->elements ? fs_mpi_shuffle(v, n, sizeof *v, (void **)&out, &m,
                                          k, flags, MPI_COMM_WORLD)
                         : fs_mpi_permutation(o->n, &out, &m, k, flags,
                                              MPI_COMM_WORLD);
        if (rc != FS_OK) { /* the same status on every rank */
            snprintf(res->msg, sizeof res->msg, "shuffle: %s", fs_strerror(rc));
            bad = 0;
            goto fail;
        }
        for (size_t i = 0; i < m; i++) { /* no stdio call per line */
            if (o->runs) {
                out_u64(&ob, j);
                out_byte(&ob, ' ');
            }
            out_u64(&ob, out[i]);
            out_byte(&ob, '\n');
        }
        out_flush(&ob);
        free(out);
        out = NULL;
        res->lines_out += m;
    }
    if (fflush(f) != 0 || ferror(f)) {
        rc = FS_EIO;
        snprintf(res->msg, sizeof res->msg, "%s: %s", sh.tmp, strerror(errno));
    }
    if (rc == FS_OK)
        rc = fs_mpi__shard_close(&sh, res->msg, sizeof res->msg);
    if ((bad = fs_mpi__agree(MPI_COMM_WORLD, rc, &st)) >= 0)
        goto fail;
    rc = fs_mpi__shard_commit(&sh, res->msg, sizeof res->msg);
    if ((bad = fs_mpi__agree(MPI_COMM_WORLD, rc, &st)) < 0) {
        fclose(f);
        free(v);
        return FS_OK;
    }
fail:
    MPI_Bcast(res->msg, (int)sizeof res->msg, MPI_CHAR, bad, MPI_COMM_WORLD);
    res->bad_rank = bad;
    if (f)
        fclose(f);
    fs_mpi__shard_discard(&sh);
    free(v);
    free(out);
    return FS_EIO;
}

/* Half the available memory, shared by the ranks on this node. */
static uint64_t default_memory(void)
{
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                            MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    return fs_lines_default_memory() / (uint64_t)(local > 0 ? local : 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* a hidden new shard (no O_TMPFILE) goes on SIGINT/SIGTERM/SIGHUP, as
     * mpirun sends when a rank dies */
    fs_mpi__shard_on_temp = pending_on_temp;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &P_);
    cli_prog = "fairshuf-mpi";
    opts o;
    int status = parse(argc, argv, &o);
    if (status != 0) {
        MPI_Finalize();
        return status < 0 ? CLI_OK : status;
    }
    if (o.chunk)
        fs_mpi__chunk = (size_t)o.chunk;
    if (o.piece)
        fs_mpi__piece = (size_t)o.piece;
    if (o.memory == 0)
        o.memory = default_memory();
    if (o.tmpdir == NULL && (o.tmpdir = getenv("TMPDIR")) == NULL)
        o.tmpdir = "/tmp";
    uint8_t key[32];
    fs_mpi_lines_result res;
    memset(&res, 0, sizeof res);
    int rc = o.seed ? fs_seed_to_key(o.seed, key) : fs_mpi_key(MPI_COMM_WORLD, key);
    if (rc != FS_OK) {
        if (rank_ == 0)
            fprintf(stderr, "%s: %s: %s\n", cli_prog,
                    o.seed ? "invalid seed" : "randomness", fs_strerror(rc));
        MPI_Finalize();
        return o.seed ? CLI_USAGE : CLI_FAIL;
    }
    if (strcmp(o.cmd, "lines") == 0) {
        fs_mpi_lines_config c = {o.files, o.nfiles, o.zero ? '\0' : '\n',
                                 {0}, o.output, o.memory, o.tmpdir,
                                 o.fail_rank, o.local_only, o.head,
                                 o.header, o.csv, 0};
        memcpy(c.key, key, 32);
        /* FAIRSHUF_MPI_SHARED=0: the lines exchanged in rounds even when
         * every rank runs on one node (docs/distributed.md) */
        const char *sh = getenv("FAIRSHUF_MPI_SHARED");
        c.shared = sh == NULL || strcmp(sh, "0") != 0;
        rc = fs_mpi__lines(&c, MPI_COMM_WORLD, &res);
    } else {
        rc = run_array(&o, key, &res);
    }
    status = rc == FS_OK ? CLI_OK : report(&res);
    if (o.stats && rc == FS_OK)
        stats(&o, &res);
    MPI_Finalize();
    return status;
}

/* perm.c -- `fairshuf perm N`: random permutations of 0..N-1. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"
#include "perm_lazy.h"

static const char usage_text[] =
    "Usage: fairshuf perm [OPTION]... N\n"
    "Print random permutations of 0..N-1 (1..N with --one-based), one per\n"
    "line, numbers separated by spaces.\n"
    "\n"
    "  -c, --count=K        print K permutations (default 1)\n"
    "  -a, --algorithm=NAME shuffle algorithm (default auto); 'list' shows all,\n"
    "                       negative controls marked\n"
    "  -G, --rng=NAME       generator (default chacha20); 'list' shows all\n"
    "  -s, --seed=S         reproducible output: the same S gives the same\n"
    "                       permutations on every run and platform\n"
    "  -1, --one-based      number from 1 to N\n"
    "      --threads=T      shuffle with up to T threads (1 to 256; default:\n"
    "                       one per CPU); the output does not change.  Used\n"
    "                       from 16 MiB of data (N >= 2097152), auto only\n"
    "      --lazy           keyed permutation, O(1) memory, any N < 2^64; with\n"
    "                       --count=K, K orders under derived keys\n"
    "      --at=I           print only the item at position I (implies --lazy;\n"
    "                       I below N, 1 to N with -1, else exit 2); with\n"
    "                       --count=K, one line per epoch 0..K-1\n"
    "      --inverse=J      print only the position of item J (implies --lazy)\n"
    "      --range=A-B      print positions A to B (implies --lazy)\n"
    "      --help           display this help and exit\n"
    "      --version        output version information and exit\n"
    "\n"
    "Without --seed the generator is keyed from the operating system.\n"
    "Examples:\n"
    "  fairshuf perm 10\n"
    "  fairshuf perm 4 --count=3 --seed=demo\n"
    "  fairshuf perm 52 --algorithm=asf-1999 --rng=delphi --seed=0\n"
    "  fairshuf perm 18446744073709551615 --at=12345 --seed=demo\n"
    "  fairshuf perm -1 7\n"
    "--lazy orders are pseudo-random permutations (docs/keyed.md), not exact\n"
    "uniform draws over all N! orders.\n"
    "Exit status: 0 success, 1 failure, 2 usage error.\n";

int cmd_perm(int argc, char **argv)
{
    static const struct option opts[] = {
        {"count", required_argument, NULL, 'c'},
        {"algorithm", required_argument, NULL, 'a'},
        {"rng", required_argument, NULL, 'G'},
        {"seed", required_argument, NULL, 's'},
        {"one-based", no_argument, NULL, '1'},
        {"lazy", no_argument, NULL, 'l'},
        {"at", required_argument, NULL, 'A'},
        {"inverse", required_argument, NULL, 'I'},
        {"range", required_argument, NULL, 'R'},
        {"threads", required_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    uint64_t count = 1;
    const char *alg_name = "auto", *rng_name = NULL, *seed = NULL;
    int one_based = 0;
    unsigned threads = 0; /* not given: one per CPU (the library's 0) */
    perm_lazy_opts lazy = {0};

    /* getopt_long alone reads the arguments: "-1" is --one-based wherever
     * it stands, and an option's value may look like a negative number
     * (--seed -5).  A stray "-5" is an invalid option (cli_bad_option). */
    int c;
    /* --lazy is long-only: -l is deal's and fair's --lang */
    while ((c = getopt_long(argc, argv, "c:a:G:s:1", opts, NULL)) != -1) {
        switch (c) {
        case 'c': count = cli_u64_or_die("count", optarg); break;
        case 'a': alg_name = optarg; break;
        case 'G': rng_name = optarg; break;
        case 's': seed = optarg; break;
        case '1': one_based = 1; break;
        case 'l': lazy.lazy = 1; break;
        case 'A': lazy.at = optarg; lazy.lazy = 1; break;
        case 'I': lazy.inverse = optarg; lazy.lazy = 1; break;
        case 'R': lazy.range = optarg; lazy.lazy = 1; break;
        case 'T': threads = cli_threads_or_die(optarg, 256); break;
        case 'h': cli_help("perm", usage_text);
        case 'V': cli_version("perm");
        default: cli_bad_option("perm");
        }
    }
    fs_algorithm alg = cli_algorithm(alg_name);
    if (rng_name && strcmp(rng_name, "list") == 0)
        cli_list_rngs();
    if (optind >= argc) {
        cli_error("missing N");
        cli_try_help("perm", CLI_USAGE);
    }
    if (optind + 1 < argc) {
        cli_error("extra operand '%s'", argv[optind + 1]);
        cli_try_help("perm", CLI_USAGE);
    }
    if (threads != 0 && (lazy.lazy || alg != FS_ALG_AUTO))
        cli_die(CLI_USAGE, "--threads works with --algorithm=auto only "
                           "(the other algorithms are one-threaded)");
    if (lazy.lazy) {
        if (rng_name || strcmp(alg_name, "auto") != 0)
            cli_die(CLI_USAGE, "--lazy takes no --rng or --algorithm: it is "
                               "keyed (docs/keyed.md)");
        return perm_lazy_run(&lazy, argv[optind], count, seed, one_based);
    }
    uint64_t n = cli_u64_or_die("size", argv[optind]);
    if (n > SIZE_MAX / sizeof(uint64_t))
        cli_die(CLI_USAGE, "invalid size: '%s': too large", argv[optind]);
    fs_rng *rng = cli_rng(rng_name, seed);
    uint64_t *a = malloc((n ? n : 1) * sizeof *a);
    if (a == NULL)
        cli_die(CLI_FAIL, "memory exhausted");
    out_buf out;
    out_init(&out, stdout);
    for (uint64_t k = 0; k < count; k++) {
        for (uint64_t i = 0; i < n; i++)
            a[i] = i + (uint64_t)one_based;
        out_check(&out,
                  alg == FS_ALG_AUTO
                      ? fs_shuffle_threads(a, (size_t)n, sizeof *a, threads,
                                           rng)
                      : fs_shuffle_with(alg, a, (size_t)n, sizeof *a, rng),
                  "shuffle");
        for (uint64_t i = 0; i < n; i++) {
            if (i)
                out_byte(&out, ' ');
            out_u64(&out, a[i]);
        }
        out_byte(&out, '\n');
    }
    out_flush(&out);
    free(a);
    fs_rng_free(rng);
    return CLI_OK;
}

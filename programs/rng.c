/* rng.c -- `fairshuf rng`: a generator's raw output, for known-answer checks
 * and for statistical batteries (`fairshuf rng --format=raw | dieharder -g
 * 200 -a`). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out.h"

static const char usage_text[] =
    "Usage: fairshuf rng [OPTION]...\n"
    "Print a generator's output: K numbers, or B bytes as hex or raw.\n"
    "\n"
    "  -G, --rng=NAME      generator (default chacha20); 'list' shows all\n"
    "  -s, --seed=S        reproducible output (see fairshuf(1), SEEDS)\n"
    "  -c, --count=K       print K outputs (default 10; endless for raw)\n"
    "  -b, --bytes=B       print B bytes of the stream instead\n"
    "  -f, --format=FMT    u64 (decimal 64-bit words; the default for 64-bit\n"
    "                      generators), u32 (decimal 32-bit words; the default\n"
    "                      for the others, such as mt19937), hex (a word's value,\n"
    "                      most significant digit first; with --bytes the bytes\n"
    "                      in stream order), raw (bytes in stream order)\n"
    "      --help          display this help and exit\n"
    "      --version       output version information and exit\n"
    "\n"
    "Every generator is a byte stream of its native outputs, little-endian\n"
    "(rand's 31-bit outputs packed without gaps); u64 takes 8 bytes, u32 4\n"
    "(docs/stream.md).  raw writes the bytes as is, without end when neither\n"
    "--count nor --bytes is given.\n"
    "Examples:\n"
    "  fairshuf rng --rng=mt19937 --seed=5489 --count=3\n"
    "  fairshuf rng --seed=$(printf '0%.0s' $(seq 64)) --format=hex --bytes=64\n"
    "  fairshuf rng --format=raw | dieharder -g 200 -d 0\n";

enum fmt { F_DEFAULT, F_U64, F_U32, F_HEX, F_RAW };

static void put_hex(out_buf *o, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out_byte(o, digits[p[i] >> 4]);
        out_byte(o, digits[p[i] & 15]);
    }
}

int cmd_rng(int argc, char **argv)
{
    static const struct option opts[] = {
        {"rng", required_argument, NULL, 'G'},
        {"seed", required_argument, NULL, 's'},
        {"count", required_argument, NULL, 'c'},
        {"bytes", required_argument, NULL, 'b'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    const char *rng_name = NULL, *seed = NULL;
    uint64_t count = 0, bytes = 0;
    int have_count = 0, have_bytes = 0;
    enum fmt fmt = F_DEFAULT;
    int c;
    while ((c = getopt_long(argc, argv, "G:s:c:b:f:", opts, NULL)) != -1) {
        switch (c) {
        case 'G': rng_name = optarg; break;
        case 's': seed = optarg; break;
        case 'c': count = cli_u64_or_die("count", optarg); have_count = 1; break;
        case 'b': bytes = cli_u64_or_die("byte count", optarg); have_bytes = 1; break;
        case 'f':
            if (strcmp(optarg, "u64") == 0) fmt = F_U64;
            else if (strcmp(optarg, "u32") == 0) fmt = F_U32;
            else if (strcmp(optarg, "hex") == 0) fmt = F_HEX;
            else if (strcmp(optarg, "raw") == 0) fmt = F_RAW;
            else cli_die(CLI_USAGE, "invalid format: '%s' (u64, u32, hex, raw)", optarg);
            break;
        case 'h': cli_help("rng", usage_text);
        case 'V': cli_version("rng");
        default: cli_bad_option("rng");
        }
    }
    if (optind < argc) {
        cli_error("extra operand '%s'", argv[optind]);
        cli_try_help("rng", CLI_USAGE);
    }
    if (have_count && have_bytes)
        cli_die(CLI_USAGE, "--count and --bytes are exclusive");
    if (have_bytes && (fmt == F_U64 || fmt == F_U32))
        cli_die(CLI_USAGE, "--bytes needs --format=hex or --format=raw");
    fs_rng *rng = cli_rng(rng_name, seed);
    unsigned native = fs_rng_info_of(rng)->native_bits;
    if (fmt == F_DEFAULT)
        fmt = have_bytes ? F_HEX : native < 64 ? F_U32 : F_U64;
    if (!have_count && !have_bytes && fmt != F_RAW)
        count = 10, have_count = 1;
    unsigned word = fmt == F_U32 || (fmt != F_U64 && native < 64) ? 4 : 8;

    /* Nothing drawn after a generator failed is printed: its error is
     * checked after every draw, before the draw's output is written. */
    out_buf out;
    out_init(&out, stdout);
    unsigned char block[4096];
    if (have_bytes || fmt == F_RAW) {
        /* A byte stream: B bytes, K words (counted in words: K * 8 need not
         * fit in 64 bits), or endless (raw). */
        uint64_t unit = have_bytes ? 1 : word;
        uint64_t left = have_bytes ? bytes : count;
        int endless = !have_bytes && !have_count;
        while ((endless || left > 0) && !ferror(stdout)) {
            uint64_t units = sizeof block / unit;
            if (!endless && units > left)
                units = left;
            size_t n = (size_t)(units * unit);
            fs_rng_bytes(rng, block, n);
            cli_check(fs_rng_error(rng), "generator");
            if (fmt == F_RAW)
                out_bytes(&out, block, n);
            else
                put_hex(&out, block, n);
            if (!endless)
                left -= units;
        }
        if (fmt == F_HEX)
            out_byte(&out, '\n');
    } else {
        /* Words as numbers; hex prints a word's value, most significant
         * digit first (the stream's byte order is --bytes). */
        for (uint64_t k = 0; k < count && !ferror(stdout); k++) {
            uint64_t v = word == 8 ? fs_rng_u64(rng) : fs_rng_u32(rng);
            cli_check(fs_rng_error(rng), "generator");
            if (fmt == F_HEX) {
                unsigned char be[8];
                for (unsigned i = 0; i < word; i++)
                    be[word - 1 - i] = (unsigned char)(v >> (8 * i));
                put_hex(&out, be, word);
            } else {
                out_u64(&out, v);
            }
            out_byte(&out, '\n');
        }
    }
    out_flush(&out);
    fs_rng_free(rng);
    return CLI_OK;
}

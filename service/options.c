/* options.c -- fairshuf serve: options and help. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "service.h"
#include "cli.h"

static const char usage_text[] =
    "Usage: fairshuf serve --db=FILE|URL --token-file=FILE\n"
    "                      [--listen=HOST:PORT] [OPTION]...\n"
    "A provably-fair dealing service over HTTP/JSON (docs/service.md).\n"
    "Tables, their seed periods (scheme " FS_FAIR_SCHEME ") and their logs\n"
    "live in the SQLite database FILE (created if missing, WAL mode); every\n"
    "record is committed to disk before the request that made it is\n"
    "answered.  With --db=postgresql://... several services share one\n"
    "PostgreSQL database and deal the same tables (docs/service.md).\n"
    "\n"
    "      --db=FILE|URL      the database: a SQLite file, or a libpq URL\n"
    "                         postgresql://[user@]host[:port]/dbname[?...]\n"
    "      --token-file=FILE  the operator's bearer token (first line, 16 or\n"
    "                         more visible ASCII characters; a regular file\n"
    "                         without NUL bytes, not writable by its group,\n"
    "                         not readable or writable by others): every\n"
    "                         POST needs 'Authorization: Bearer TOKEN'\n"
    "      --listen=HOST:PORT where to listen (default 127.0.0.1:8080; port 0\n"
    "                         picks a free port, printed on standard output)\n"
    "      --port-file=FILE   write the bound port to FILE once ready (a\n"
    "                         device or FIFO is written in place, a symlink\n"
    "                         stays a link, a file is replaced whole)\n"
    "      --web-root=DIR     folder of the verifier page verify.html, served\n"
    "                         as GET /verify (default: web/ beside the\n"
    "                         binary, else PREFIX/share/fairshuf/web)\n"
    "      --max-body=BYTES   largest request body (default 16K)\n"
    "      --max-connections=N  concurrent connections (default 1024)\n"
    "      --max-connections-per-ip=N  concurrent connections from one\n"
    "                         client address (default 64; 0: no limit, for\n"
    "                         a reverse proxy that limits them itself)\n"
    "      --idle-timeout=SECONDS  close a connection that sends or reads\n"
    "                         nothing for this long (default 15; 1 to 3600)\n"
    "      --threads=N        HTTP event-loop threads (default 2)\n"
    "      --batch=N          most requests in one transaction (group commit;\n"
    "                         default 256; 1 turns group commit off)\n"
    "      --sync=full|normal SQLite synchronous mode (default full: each\n"
    "                         commit is fsynced; normal survives a crash of\n"
    "                         the service but not of the machine)\n"
    "      --seed-key-file=F  seal the unrevealed server seeds in the\n"
    "                         database with this key (64 hex digits; the\n"
    "                         file owner-only: openssl rand -hex 32 >F);\n"
    "                         required with a postgresql:// database\n"
    "      --old-seed-key-file=F  the key being rotated out: seeds sealed\n"
    "                         under it still open and are sealed again\n"
    "                         under --seed-key-file\n"
    "      --vrf-key-file=F   the VRF key of fairshuf-vrf-1 tables (64 hex\n"
    "                         digits and a newline, owner-only: 'fairshuf\n"
    "                         fair vrf-keygen --key-file=F'); without it\n"
    "                         such tables are refused (409 no_vrf_key) and\n"
    "                         GET /v1/vrf-key answers 404\n"
    "      --instance-id=NAME this instance's name in /metrics, /v1/health\n"
    "                         and its messages (default: the host name)\n"
    "      --help             display this help and exit\n"
    "      --version          output version information and exit\n"
    "\n"
    "API (docs/service.md): GET /v1/health, GET /v1/games,\n"
    "POST /v1/tables {\"game\",\n"
    "\"players\",\"decks\"}, POST /v1/tables/ID/client-seed {\"client_seed\"},\n"
    "POST /v1/tables {\"scheme\":\"" FS_VRF_SCHEME "\",\"game\",\"commitments\":[..]}\n"
    "and POST /v1/tables/ID/client-seeds {\"client_seeds\":[..]} (a vrf table:\n"
    "each deal's answer carries its proven hand record), GET /v1/vrf-key,\n"
    "POST /v1/tables/ID/deals, POST /v1/tables/ID/rotate, GET /v1/tables/ID,\n"
    "GET /v1/tables/ID/log (what 'fairshuf fair check --log' reads),\n"
    "GET /metrics, GET /verify.  Errors: {\"error\":{\"code\",\"message\"}}.\n"
    "'fairshuf serve migrate --help': copy a SQLite database into PostgreSQL.\n"
    "SIGTERM or SIGINT: stop accepting, finish the requests in flight, exit 0.\n"
    "Exit status: 0 after a clean stop, 1 error, 2 usage.\n"
    "Example:\n"
    "  head -c 32 /dev/urandom | base64 >token && chmod 600 token\n"
    "  fairshuf serve --db=tables.db --token-file=token "
    "--listen=127.0.0.1:8080\n";

/* A count from lo to hi, or a usage error saying so (for any bad text,
 * a negative one too). */
static unsigned range_or_die(const char *what, const char *s, unsigned lo,
                             unsigned hi)
{
    uint64_t v;
    if (cli_parse_u64(s, &v) != 0 || v < lo || v > hi)
        cli_die(CLI_USAGE, "invalid %s: '%s' (%u to %u)", what, s, lo, hi);
    return (unsigned)v;
}

int cmd_serve(int argc, char **argv)
{
    enum { OPT_DB = 256, OPT_TOKEN, OPT_LISTEN, OPT_PORT_FILE, OPT_WEB,
           OPT_BODY, OPT_CONN, OPT_BATCH, OPT_SYNC, OPT_THREADS, OPT_PER_IP,
           OPT_IDLE, OPT_KEY, OPT_OLD_KEY, OPT_INSTANCE, OPT_VRF_KEY };
    static const struct option opts[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"token-file", required_argument, NULL, OPT_TOKEN},
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"port-file", required_argument, NULL, OPT_PORT_FILE},
        {"web-root", required_argument, NULL, OPT_WEB},
        {"max-body", required_argument, NULL, OPT_BODY},
        {"max-connections", required_argument, NULL, OPT_CONN},
        {"max-connections-per-ip", required_argument, NULL, OPT_PER_IP},
        {"idle-timeout", required_argument, NULL, OPT_IDLE},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"sync", required_argument, NULL, OPT_SYNC},
        {"seed-key-file", required_argument, NULL, OPT_KEY},
        {"old-seed-key-file", required_argument, NULL, OPT_OLD_KEY},
        {"instance-id", required_argument, NULL, OPT_INSTANCE},
        {"vrf-key-file", required_argument, NULL, OPT_VRF_KEY},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    if (argc > 1 && strcmp(argv[1], "migrate") == 0)
        return cmd_serve_migrate(argc - 1, argv + 1); /* migrate.c */
    svc_config cfg = {.listen = "127.0.0.1:8080", .max_body = 16384,
                      .max_conn = 1024, .max_per_ip = 64,
                      .idle_timeout = 15, .batch = 256,
                      .threads = 2, .exe = argv[0]};
    uint64_t v;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case OPT_DB: cfg.db = optarg; break;
        case OPT_TOKEN: cfg.token_file = optarg; break;
        case OPT_LISTEN: cfg.listen = optarg; break;
        case OPT_PORT_FILE: cfg.port_file = optarg; break;
        case OPT_WEB: cfg.web_root = optarg; break;
        case OPT_BODY:
            if (cli_parse_size(optarg, &v) || v < 64 || v > (64u << 20))
                cli_die(CLI_USAGE, "invalid body limit: '%s' (64 to 64M)",
                        optarg);
            cfg.max_body = (size_t)v;
            break;
        case OPT_CONN:
            cfg.max_conn = range_or_die("connection count", optarg, 1, 65536);
            break;
        case OPT_PER_IP:
            cfg.max_per_ip = range_or_die("connections per address", optarg,
                                          0, 65536);
            break;
        case OPT_IDLE:
            cfg.idle_timeout = range_or_die("idle timeout (seconds)", optarg,
                                            1, 3600);
            break;
        case OPT_BATCH:
            cfg.batch = range_or_die("batch size", optarg, 1, 65536);
            break;
        case OPT_THREADS: cfg.threads = cli_threads_or_die(optarg, 64); break;
        case OPT_SYNC:
            if (strcmp(optarg, "full") && strcmp(optarg, "normal"))
                cli_die(CLI_USAGE, "invalid --sync: '%s' (full or normal)",
                        optarg);
            cfg.sync_normal = strcmp(optarg, "normal") == 0;
            break;
        case OPT_KEY: cfg.seed_key_file = optarg; break;
        case OPT_OLD_KEY: cfg.old_seed_key_file = optarg; break;
        case OPT_INSTANCE: cfg.instance_id = optarg; break;
        case OPT_VRF_KEY: cfg.vrf_key_file = optarg; break;
        case 'h': cli_help("serve", usage_text);
        case 'V': cli_version("serve");
        default: cli_bad_option("serve");
        }
    }
    if (optind < argc) {
        cli_error("extra operand '%s'", argv[optind]);
        cli_try_help("serve", CLI_USAGE);
    }
    if (!cfg.db || !cfg.token_file) {
        cli_error("--db and --token-file are required");
        cli_try_help("serve", CLI_USAGE);
    }
    return svc_run(&cfg);
}

/* main.c -- the fairshuf-serve program: `fairshuf serve` runs it (execs
 * it from beside its own binary, programs/serve_exec.c), so the CLI does not
 * load libmicrohttpd, GnuTLS, jansson and SQLite for every subcommand. */
#include "cli.h"

int main(int argc, char **argv)
{
    cli_atexit_close_stdout();
    argv[0] = (char *)cli_prog; /* getopt's messages read "fairshuf: ..." */
    return cmd_serve(argc, argv);
}

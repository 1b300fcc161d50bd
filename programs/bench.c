/* bench.c -- `fairshuf bench`: not built yet (see the open issue). */
#include "cli.h"

int cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_die(CLI_FAIL, "bench: not available in this build yet");
}

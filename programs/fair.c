/* fair.c -- `fairshuf fair`: not built yet (see the open issue). */
#include "cli.h"

int cmd_fair(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_die(CLI_FAIL, "fair: not available in this build yet");
}

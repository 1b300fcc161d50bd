/* verify.c -- `fairshuf verify`: not built yet (see the open issue). */
#include "cli.h"

int cmd_verify(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_die(CLI_FAIL, "verify: not available in this build yet");
}

/* deal.c -- `fairshuf deal`: not built yet (see the open issue). */
#include "cli.h"

int cmd_deal(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_die(CLI_FAIL, "deal: not available in this build yet");
}

/* attack.c -- `fairshuf attack`: not built yet (see the open issue). */
#include "cli.h"

int cmd_attack(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_die(CLI_FAIL, "attack: not available in this build yet");
}

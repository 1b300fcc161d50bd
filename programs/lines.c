/* lines.c -- `fairshuf lines`: not built yet (see the open issue). */
#include "cli.h"

int cmd_lines(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_die(CLI_FAIL, "lines: not available in this build yet");
}

/* playlist.c -- `fairshuf playlist`: not built yet (see the open issue). */
#include "cli.h"

int cmd_playlist(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_die(CLI_FAIL, "playlist: not available in this build yet");
}

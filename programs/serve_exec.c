/* serve_exec.c -- `fairshuf serve`: runs fairshuf-serve (programs/serve.c
 * and service/), found beside this binary, with the same arguments.  The
 * service is its own program so that the other subcommands do not load the
 * HTTP, TLS, JSON and SQLite libraries it needs. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cmd_serve(int argc, char **argv)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        cli_die(CLI_FAIL, "serve: cannot find this program (/proc/self/exe): "
                          "%s", strerror(errno));
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    size_t dir = slash ? (size_t)(slash - exe) + 1 : 0;
    static const char name[] = "fairshuf-serve";
    if (dir + sizeof name > sizeof exe)
        cli_die(CLI_FAIL, "serve: path too long: %s", exe);
    memcpy(exe + dir, name, sizeof name);
    (void)argc;
    argv[0] = exe;
    execv(exe, argv);
    cli_die(CLI_FAIL, "serve: %s: %s (it is built and installed beside "
                      "fairshuf)", exe, strerror(errno));
}

/* main.c -- the fairshuf program: one binary, subcommands.  Run under the
 * name `shuf` it is `fairshuf lines` and speaks as shuf. */
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"lines", cmd_lines, "shuffle lines: a GNU shuf drop-in, out of core"},
    {"perm", cmd_perm, "random permutations of 0..N-1"},
    {"rng", cmd_rng, "raw generator output (numbers or bytes)"},
    {"deal", cmd_deal, "shuffle and deal card games"},
    {"fair", cmd_fair, "provably-fair commit / deal / check"},
    {"attack", cmd_attack, "reproduce the 1999 online poker attack"},
    {"verify", cmd_verify, "fairness lab: statistical tests and pictures"},
    {"certify", cmd_certify, "a gaming lab's submission: data, tests, verdict"},
    {"bench", cmd_bench, "performance against std::shuffle, GSL, GNU shuf"},
    {"playlist", cmd_playlist, "shuffle play: next, previous, cycles"},
    {"serve", cmd_serve, "provably-fair dealing service over HTTP/JSON"},
    {"mpd", cmd_mpd, "fairshuf's shuffle in MPD: shuffle the queue, or drive it"},
};
#define NCMD (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "Usage: fairshuf COMMAND [OPTION]... [ARG]...\n"
               "Fair, fast and verifiable shuffling.\n\nCommands:\n");
    for (size_t i = 0; i < NCMD; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'fairshuf COMMAND --help' describes a command.\n"
               "Manual: %s\n"
               "Run as 'shuf' (a link), fairshuf behaves as 'fairshuf "
               "lines'.\n",
            cli_manual("fairshuf"));
}

int main(int argc, char **argv)
{
    cli_atexit_close_stdout();
    char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    if (strcmp(base, "shuf") == 0) {
        cli_prog = "shuf";
        return cmd_lines(argc, argv);
    }
    if (argc < 2) {
        cli_error("missing command");
        cli_try_help(NULL, CLI_USAGE);
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 ||
        strcmp(name, "help") == 0) {
        if (strcmp(name, "help") == 0 && argc > 2) {
            char *help_argv[] = {(char *)cli_prog, (char *)"--help", NULL};
            for (size_t i = 0; i < NCMD; i++)
                if (strcmp(commands[i].name, argv[2]) == 0)
                    return commands[i].run(2, help_argv);
            cli_die(CLI_USAGE, "unknown command: '%s'", argv[2]);
        }
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
        cli_version(NULL);
    for (size_t i = 0; i < NCMD; i++)
        if (strcmp(commands[i].name, name) == 0) {
            /* getopt's own messages start with argv[0]: make them read
             * "fairshuf: ..." like every other message. */
            argv[1] = (char *)cli_prog;
            return commands[i].run(argc - 1, argv + 1);
        }
    cli_error("unknown command: '%s'", name);
    cli_try_help(NULL, CLI_USAGE);
}

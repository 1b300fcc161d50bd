/* main.c -- fairshuf-mpd, which `fairshuf mpd` runs (programs/mpd_exec.c):
 * fairshuf's shuffle in MPD, a one-off `shuffle` of the queue or a `run`
 * that drives MPD's playback as fairshuf's player (docs/playlist.md "In
 * MPD and mpv").  Its own program so that the other subcommands do not
 * load libmpdclient. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mpd.h"

static const char usage_text[] =
    "Usage: fairshuf mpd [OPTION]... shuffle\n"
    "  or:  fairshuf mpd [OPTION]... [--state=STATE] run\n"
    "fairshuf's shuffle in MPD (the Music Player Daemon).\n"
    "\n"
    "  shuffle  rearrange MPD's queue into the order 'fairshuf playlist'\n"
    "           gives for its files (uniform: a drop-in for 'mpc shuffle';\n"
    "           a song playing stays current and goes first)\n"
    "  run      stay connected and drive MPD's playback as fairshuf's\n"
    "           player: every song of the queue once per cycle, a new\n"
    "           order each cycle; follows songs added, removed or moved,\n"
    "           songs inserted after the current one play next, a song\n"
    "           picked by hand starts a cycle there.  Keeps MPD's random\n"
    "           mode off; moves the next song after the current one.\n"
    "\n"
    "      --host=H           MPD's host or socket (default: MPD_HOST, else\n"
    "                         localhost; MPD_HOST=password@host as mpc)\n"
    "      --port=P           MPD's port (default: MPD_PORT, else 6600)\n"
    "      --password-file=F  send the first line of F as the password\n"
    "  -s, --seed=S           reproducible order (without it: a key from\n"
    "                         the OS)\n"
    "      --spread=TAG       keep songs sharing TAG apart: artist, album or\n"
    "                         albumartist (deliberately not uniform)\n"
    "      --weights=sticker:NAME  weighted order from MPD's song sticker\n"
    "                         NAME (e.g. a rating); weight 0: never played\n"
    "      --default-weight=W the weight of songs without the sticker\n"
    "                         (default 1)\n"
    "      --state=STATE      run: the player's state (default\n"
    "                         $XDG_STATE_HOME/fairshuf/mpd.state, else\n"
    "                         ~/.local/state/fairshuf/mpd.state)\n"
    "      --force-new        run: start a new player over STATE\n"
    "      --help             display this help and exit\n"
    "      --version          output version information and exit\n"
    "\n"
    "Exit status: 0 done, 1 MPD unreachable, a password refused, or MPD\n"
    "gone (run retries with back-off instead), 2 usage error.\n"
    "Examples:\n"
    "  fairshuf mpd shuffle\n"
    "  fairshuf mpd --spread=artist run\n"
    "  systemctl --user enable --now fairshuf-mpd   (the unit in\n"
    "                                                contrib/systemd/)\n";

static enum mpd_tag_type spread_tag(const char *name)
{
    if (strcmp(name, "artist") == 0)
        return MPD_TAG_ARTIST;
    if (strcmp(name, "album") == 0)
        return MPD_TAG_ALBUM;
    if (strcmp(name, "albumartist") == 0)
        return MPD_TAG_ALBUM_ARTIST;
    cli_die(CLI_USAGE, "invalid --spread: '%s': must be artist, album or "
            "albumartist", name);
}

int main(int argc, char **argv)
{
    cli_atexit_close_stdout();
    argv[0] = (char *)cli_prog; /* getopt's messages read "fairshuf: ..." */
    static const struct option opts[] = {
        {"host", required_argument, NULL, 'H'},
        {"port", required_argument, NULL, 'p'},
        {"password-file", required_argument, NULL, 'P'},
        {"seed", required_argument, NULL, 's'},
        {"spread", required_argument, NULL, 'A'},
        {"weights", required_argument, NULL, 'W'},
        {"default-weight", required_argument, NULL, 'D'},
        {"state", required_argument, NULL, 'S'},
        {"force-new", no_argument, NULL, 'N'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    mq_opts o;
    memset(&o, 0, sizeof o);
    o.default_weight = 1;
    uint64_t v;
    int c;
    while ((c = getopt_long(argc, argv, "s:", opts, NULL)) != -1) {
        switch (c) {
        case 'H': o.host = optarg; break;
        case 'p':
            if (cli_parse_u64(optarg, &v) != 0 || v == 0 || v > 65535)
                cli_die(CLI_USAGE, "invalid port: '%s'", optarg);
            o.port = (unsigned)v;
            break;
        case 'P': o.password_file = optarg; break;
        case 's': o.seed = optarg; break;
        case 'A':
            o.spread = optarg;
            o.spread_tag = spread_tag(optarg);
            break;
        case 'W':
            if (strncmp(optarg, "sticker:", 8) != 0 || optarg[8] == '\0')
                cli_die(CLI_USAGE, "invalid --weights: '%s': must be "
                        "sticker:NAME", optarg);
            o.weights = optarg + 8;
            break;
        case 'D': {
            char *end;
            o.default_weight = strtod(optarg, &end);
            if (end == optarg || *end || !(o.default_weight >= 0) ||
                o.default_weight > 1e300)
                cli_die(CLI_USAGE, "invalid --default-weight: '%s': must be "
                        "a number, 0 or more", optarg);
            break;
        }
        case 'S': o.state = optarg; break;
        case 'N': o.force_new = 1; break;
        case 'h': cli_help("mpd", usage_text);
        case 'V': cli_version("mpd");
        default: cli_bad_option("mpd");
        }
    }
    if (optind >= argc) {
        cli_error("missing action: shuffle or run");
        cli_try_help("mpd", CLI_USAGE);
    }
    if (optind + 1 < argc) {
        cli_error("extra operand '%s'", argv[optind + 1]);
        cli_try_help("mpd", CLI_USAGE);
    }
    if (o.seed && *o.seed == '\0')
        cli_die(CLI_USAGE, "invalid seed: empty");
    if (o.spread && o.weights)
        cli_die(CLI_USAGE, "--weights and --spread exclude each other");
    const char *action = argv[optind];
    if (strcmp(action, "shuffle") == 0) {
        if (o.state || o.force_new)
            cli_die(CLI_USAGE, "--state and --force-new are for 'run'");
        return mq_shuffle(&o);
    }
    if (strcmp(action, "run") == 0)
        return mq_run(&o);
    cli_error("invalid action '%s': expected shuffle or run", action);
    cli_try_help("mpd", CLI_USAGE);
}

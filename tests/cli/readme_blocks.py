#!/usr/bin/env python3
"""readme_blocks.py -- the README's runnable code blocks as scripts.

Usage: readme_blocks.py README.md OUTDIR

The convention (README.md, "A minute of use"):
  * a fenced block whose info string is `sh` (or `bash`, `shell`) runs in
    bash, each command as typed; one whose info string is `python` runs in
    python3;
  * `no-run` after the language (```sh no-run) marks a block that must not
    run in the test (make check itself, installing as root);
  * a shell command whose trailing comment ends in `exit N` must exit N;
    every other command must exit 0;
  * `console` blocks (prompts mixed with output) are refused: write `sh`.
Blocks run in README order in one scratch folder (files persist from one
block to the next, shell variables do not).  Each block becomes OUTDIR/NN.sh
or NN.py; a shell script stops at the first command whose status is not the
expected one, naming README.md's line.  Prints one line per block:
"NN.sh LINE" (or .py).  Exit status 1 if the README breaks the convention.
"""
import re
import shlex
import sys

RUN_SH = {"sh", "bash", "shell"}


def blocks(lines):
    """(info, first line number, body lines) for each fenced block."""
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(.*)$", lines[i])
        if not m:
            i += 1
            continue
        info, start, body = m.group(2).strip(), i + 2, []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i])
            i += 1
        yield info, start, body
        i += 1


def commands(start, body):
    """(line number, command) with continuation lines joined."""
    cur, at = "", None
    for n, line in enumerate(body, start):
        if at is None:
            at = n
        if line.endswith("\\"):
            cur += line[:-1] + "\n"
            continue
        cur += line
        if cur.strip() and not cur.strip().startswith("#"):
            yield at, cur
        cur, at = "", None


def shell_script(start, body):
    out = ["# README.md line %d" % start]
    for n, cmd in commands(start, body):
        m = re.search(r"\s#\s.*\bexit (\d+)\s*$", cmd)
        want = int(m.group(1)) if m else 0
        out.append(cmd)
        out.append("st=$?; if [ \"$st\" -ne %d ]; then echo \"README.md:%d: "
                   "exit $st, expected %d:\" %s >&2; exit 1; fi"
                   % (want, n, want, shlex.quote(cmd)))
    return "\n".join(out) + "\n"


def main():
    readme, outdir = sys.argv[1], sys.argv[2]
    lines = open(readme, encoding="utf-8").read().split("\n")
    bad = 0
    k = 0
    for info, start, body in blocks(lines):
        words = info.split()
        lang = words[0] if words else ""
        if lang == "console":
            print("README.md:%d: a console block: write `sh` (commands as "
                  "typed) so the test runs it" % (start - 1), file=sys.stderr)
            bad = 1
            continue
        if "no-run" in words[1:] or lang not in RUN_SH | {"python"}:
            continue
        k += 1
        if lang == "python":
            name = "%02d.py" % k
            text = "# README.md line %d\n" % start + "\n".join(body) + "\n"
        else:
            name = "%02d.sh" % k
            text = shell_script(start, body)
        with open("%s/%s" % (outdir, name), "w", encoding="utf-8") as f:
            f.write(text)
        print(name, start)
    return bad


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""mutants.py -- mutation testing of the suite (`make mutants`; opt-in).

Each folder of lib/, common/, programs/ and service/ (and mpi/, when mpicc is found) may hold a
MUTANTS file listing small,
realistic bugs planted in the code next to it (format below).  For each
mutant, in a scratch copy of the tree (never the real one), the original
text is replaced, the tree rebuilt (the mutant's own test files first, the rest
only if they pass) and the suite run until its first failing
test file; the mutant is then KILLED (by that file and test case) or, if the
whole suite passes, SURVIVED.  Last line: `mutation score: K of M (P%)`.

MUTANTS format (one block per mutant; paths relative to the MUTANTS file):

    [id]
    file: durstenfeld.c
    desc: what the bug is, by behaviour
    tests: shuffle_sizes shuffle_exhaustive   (files to try first; optional)
    equivalent: why no test can tell      (optional: listed, not run/counted)
    from:
    <exact original lines>
    to:
    <replacement lines>
    end

The `from` text must occur exactly once in the file: a mutant whose text no
longer matches (code moved or rewritten) is STALE, one that matches more
than once is AMBIGUOUS, one that no longer compiles is INVALID; each fails
the run, so a refactor cannot silently drop a mutant.

Usage: scripts/mutants.py [--list] [id,id,...]      (or MUTANTS=id,id make mutants)
A test file gets 10 times its usual seconds plus 30 before a mutant that
hangs it counts as killed ("timed out").  Its usual seconds come from a
baseline run of the unmutated suite, or with FS_MUTANTS_NO_BASELINE=1 from
the last `make test` in this tree ($BUILD/tests/seconds.txt; 60 s for a
file it lacks).
Exit status: 0 when the list is clean and the score is at least
FS_MUTANTS_MIN percent (default 95); 1 otherwise.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = "build"


def parse(path):
    """Returns the mutants of one MUTANTS file (list of dicts)."""
    folder = os.path.dirname(os.path.relpath(path, ROOT))
    out, cur, field = [], None, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for lineno, line in enumerate(lines, 1):
        if field in ("from", "to"):
            if line == "to:" and field == "from":
                field = "to"
                cur["to"] = []
                continue
            if line == "end" and field == "to":
                field = None
                continue
            if re.match(r"^\[[A-Za-z0-9_.-]+\]$", line):
                # a union merge of two MUTANTS files can drop an "end":
                # the next mutant would vanish into this one's text
                raise SystemExit(f"{path}:{lineno}: {line} inside the "
                                 f"{field} text of {cur['id']}: its 'end' "
                                 "is missing")
            cur[field].append(line)
            continue
        if not line.strip() or line.startswith("#"):
            continue
        m = re.match(r"^\[([A-Za-z0-9_.-]+)\]$", line)
        if m:
            cur = {"id": m.group(1), "where": f"{path}:{lineno}",
                   "tests": [], "desc": "", "equivalent": None}
            out.append(cur)
            continue
        if cur is None:
            raise SystemExit(f"{path}:{lineno}: text before the first [id]")
        if line == "from:":
            field = "from"
            cur["from"] = []
            continue
        m = re.match(r"^(file|desc|tests|equivalent):\s*(.*)$", line)
        if not m:
            raise SystemExit(f"{path}:{lineno}: cannot parse: {line!r}")
        key, val = m.groups()
        if key == "file":
            cur["file"] = os.path.normpath(os.path.join(folder, val))
        elif key == "tests":
            cur["tests"] = val.split()
        else:
            cur[key] = val
    for mu in out:
        for key in ("file", "from", "to"):
            if key not in mu:
                raise SystemExit(f"{mu['where']}: mutant {mu['id']} has no {key}")
        mu["from"] = "\n".join(mu["from"])
        mu["to"] = "\n".join(mu["to"])
    return out


def all_mutants(root):
    files = []
    tops = ("lib", "common", "programs", "service") + (("mpi",) if shutil.which("mpicc") else ())
    for top in tops:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            if "MUTANTS" in names:
                files.append(os.path.join(dirpath, "MUTANTS"))
    mutants = []
    for f in sorted(files):
        mutants += parse(f)
    seen = set()
    for mu in mutants:
        if mu["id"] in seen:
            raise SystemExit(f"{mu['where']}: duplicate mutant id {mu['id']}")
        seen.add(mu["id"])
    return mutants


def copy_tree(dst):
    """Copies the working tree (tracked and untracked, not ignored) to dst."""
    names = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True).stdout.decode().split("\0")
    for name in names:
        src = os.path.join(ROOT, name)
        if not name or not os.path.isfile(src):
            continue
        os.makedirs(os.path.join(dst, os.path.dirname(name)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, name))


def test_files(tree):
    units = sorted(f[:-2] for f in os.listdir(os.path.join(tree, "tests/unit"))
                   if f.startswith("test_") and f.endswith(".c"))
    if shutil.which("mpicc"):  # built by the Makefile when mpicc is found
        units += sorted(f[:-2] for f in os.listdir(os.path.join(tree, "mpi/tests"))
                        if f.startswith("test_") and f.endswith(".c"))
    bats = sorted(f for f in os.listdir(os.path.join(tree, "tests/cli"))
                  if f.endswith(".bats"))
    return units + bats


def build(tree, log, tests=None):
    """Builds the programs and the test binaries of `tests` (all when None)."""
    targets = ["all", f"{BUILD}/tests/failrandom.so", f"{BUILD}/tests/failmadvise.so",
               f"{BUILD}/tests/serve-load"]
    names = test_files(tree) if tests is None else tests
    targets += [f"{BUILD}/tests/{t}" for t in names if t.startswith("test_")]
    r = subprocess.run(["make", "-j2", "--no-print-directory"] + targets, cwd=tree,
                       stdout=log, stderr=subprocess.STDOUT)
    return r.returncode == 0


def env_for(tree):
    env = dict(os.environ)
    # python3 is $PYTHON, as tests/run.sh makes it (a pyenv shim costs ~0.7 s a call)
    pybin = os.path.join(os.path.dirname(tree), "pybin")
    if not os.path.isdir(pybin):
        os.makedirs(pybin)
        py = shutil.which(env.get("PYTHON", "/usr/bin/python3")) or "/usr/bin/python3"
        os.symlink(py, os.path.join(pybin, "python3"))
    env["PATH"] = pybin + os.pathsep + env.get("PATH", "")
    env.update(BUILD=BUILD, FS_BIN=f"{tree}/{BUILD}/fairshuf",
               FS_FAILRANDOM=f"{tree}/{BUILD}/tests/failrandom.so",
               CMOCKA_MESSAGE_OUTPUT="TAP")
    env.pop("FS_TEST_FILTER", None)
    return env


def run_one(tree, name, timeout):
    """Runs one test file; returns None if it passes, else why it failed."""
    if name.endswith(".bats"):
        cmd = ["bats", "--tap", f"tests/cli/{name}"]
    else:
        cmd = [f"{BUILD}/tests/{name}"]
    try:
        r = subprocess.run(cmd, cwd=tree, env=env_for(tree), timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           start_new_session=True)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f} s"
    out = r.stdout.decode(errors="replace")
    bad = [re.sub(r"^not ok \d+ (- )?", "", l).strip()
           for l in out.split("\n") if re.match(r"^not ok \d", l)]
    if bad:  # every failing case of the file: how thin the kill is
        return ", ".join(bad[:6]) + (f" (+{len(bad) - 6})" if len(bad) > 6 else "")
    if r.returncode != 0:
        return f"exited with status {r.returncode}"
    return None


def last_seconds():
    """Each test file's seconds in the latest tests/run.sh of the real tree
    ($BUILD/tests/seconds.txt, with the suite's files running side by side,
    so longer than alone); at least 5 s each."""
    got = {}
    try:
        with open(os.path.join(ROOT, BUILD, "tests", "seconds.txt")) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[1].isdigit():
                    got[parts[0]] = max(5.0, float(parts[1]))
    except OSError:
        pass
    return got


def touch_newer(path):
    now = time.time()
    st = os.stat(path)
    t = max(now, st.st_mtime + 1)
    os.utime(path, (t, t))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    listing = "--list" in sys.argv
    only = set()
    for a in args + [os.environ.get("MUTANTS", "")]:
        only |= {x for x in a.split(",") if x}

    mutants = all_mutants(ROOT)
    if only:
        unknown = only - {m["id"] for m in mutants}
        if unknown:
            raise SystemExit(f"mutants: unknown id(s): {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m["id"] in only]

    problems = 0
    runnable = []
    for mu in mutants:
        path = os.path.join(ROOT, mu["file"])
        text = open(path, encoding="utf-8").read() if os.path.isfile(path) else ""
        n = text.count(mu["from"])
        if n != 1:
            kind = "STALE" if n == 0 else "AMBIGUOUS"
            print(f"{kind:9} {mu['id']}: its text occurs {n} times in {mu['file']} "
                  f"({mu['where']})", flush=True)
            problems += 1
        elif mu["equivalent"]:
            print(f"{'EQUIV':9} {mu['id']}: {mu['equivalent']}", flush=True)
        else:
            runnable.append(mu)
    if listing:
        for mu in runnable:
            print(f"{'LISTED':9} {mu['id']}: {mu['file']}: {mu['desc']}")
        return 1 if problems else 0

    tmp = tempfile.mkdtemp(prefix="fairshuf-mutants.")
    # Ctrl-C or a kill: the scratch copy goes, the real tree was never touched.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    killed = survived = 0
    survivors = []
    try:
        tree = os.path.join(tmp, "tree")
        copy_tree(tree)
        log = open(os.path.join(tmp, "build.log"), "w+")
        print(f"mutants: scratch copy in {tree}; building", flush=True)
        if not build(tree, log):
            log.seek(0)
            sys.stdout.write(log.read()[-3000:])
            raise SystemExit("mutants: the unmutated tree does not build")
        files = test_files(tree)
        cost = {}
        if os.environ.get("FS_MUTANTS_NO_BASELINE") != "1":
            print("mutants: baseline run of the whole suite", flush=True)
            for name in files:
                t0 = time.time()
                why = run_one(tree, name, 1800)
                cost[name] = time.time() - t0
                if why:
                    raise SystemExit(f"mutants: the unmutated suite fails: {name}: {why}")
        else:  # the seconds each file took in the last `make test` here
            cost.update(last_seconds())
        for name in files:
            cost.setdefault(name, 60.0)
        order = sorted(files, key=lambda n: cost[n])
        for mu in runnable:
            path = os.path.join(tree, mu["file"])
            original = open(path, encoding="utf-8").read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(original.replace(mu["from"], mu["to"], 1))
            touch_newer(path)
            try:
                log.seek(0)
                log.truncate()
                t0 = time.time()
                first = []
                for t in mu["tests"]:
                    first += [n for n in files if t in n and n not in first]
                rest = [n for n in order if n not in first]
                # the mutant's own test files are built first and the rest
                # only if they pass: most mutants die there, and relinking
                # every test binary was most of a mutant's time
                verdict = None
                invalid = False
                for group, tests in ((first, first), (rest, None)):
                    if not group or verdict:
                        continue
                    if not build(tree, log, tests):
                        invalid = True
                        break
                    for name in group:
                        why = run_one(tree, name, 10 * cost[name] + 30)
                        if why:
                            verdict = (name, why)
                            break
                if invalid:
                    print(f"{'INVALID':9} {mu['id']}: does not compile ({mu['where']})",
                          flush=True)
                    problems += 1
                    continue
                secs = time.time() - t0
                if verdict:
                    killed += 1
                    print(f"{'KILLED':9} {mu['id']} by {verdict[0]}: {verdict[1]} "
                          f"({secs:.0f} s)", flush=True)
                else:
                    survived += 1
                    survivors.append(mu)
                    print(f"{'SURVIVED':9} {mu['id']}: {mu['desc']} ({mu['where']})",
                          flush=True)
            finally:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(original)
                touch_newer(path)
    except KeyboardInterrupt:
        print("mutants: interrupted; scratch copy removed", flush=True)
        return 130
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    total = killed + survived
    pct = 100.0 * killed / total if total else 0.0
    if problems:
        print(f"mutants: {problems} mutant(s) stale, ambiguous or invalid: "
              "update their MUTANTS entries")
    print(f"mutation score: {killed} of {total} ({pct:.1f}%)")
    need = float(os.environ.get("FS_MUTANTS_MIN", "95"))
    return 0 if problems == 0 and (only or pct >= need) else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bats
# `fairshuf bench`: options, JSON schema, SVG, errors.  Tiny sizes and one
# short run each: this checks the tool, not the speed.

@test "bench --format=json prints one object per measurement with the schema" {
    run bash -c "'$FS_BIN' bench --sizes=54,1e3 --runs=1 --min-time=1 --threads=2 --format=json 2>/dev/null"
    [ "$status" -eq 0 ]
    echo "$output" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
keys = {"impl", "rng", "n", "threads", "ns_per_element", "min", "max", "peak_rss_mib",
        "peak_over_array", "ratios"}
assert rows and all(keys <= set(r) <= keys | {"first_over_later"} for r in rows), rows
# ratios are per-run ratios to each baseline measured: memcpy always
for r in rows:
    assert "memcpy" in r["ratios"], r
    for st in r["ratios"].values():
        assert st["min"] <= st["median"] <= st["max"], r
impls = {r["impl"] for r in rows}
assert {"fairshuf", "durstenfeld-plain", "memcpy"} <= impls, impls
assert {r["n"] for r in rows} == {54, 1000}
assert any(r["impl"] == "fairshuf" and r["threads"] == 2 for r in rows)
assert all(r["min"] <= r["ns_per_element"] <= r["max"] for r in rows)
'
}

@test "bench: a row for the default generator (NULL, OS-keyed) by default" {
    run bash -c "'$FS_BIN' bench --sizes=1000 --runs=1 --min-time=1 --format=json 2>/dev/null"
    [ "$status" -eq 0 ]
    echo "$output" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
got = {(r["impl"], r["rng"]) for r in rows}
assert {("fairshuf", "default"), ("fairshuf", "chacha20"), ("fairshuf", "xoshiro256ss")} <= got, got
'
    # named alone; and with getrandom refused the row fails closed
    run "$FS_BIN" bench --sizes=100 --runs=1 --min-time=1 --rng=default
    [ "$status" -eq 0 ]
    [[ "$output" == *"fairshuf "*"default"* ]]
    run env LD_PRELOAD="$FS_FAILRANDOM" "$FS_BIN" bench --sizes=100 --runs=1 --min-time=1 --rng=default
    [ "$status" -eq 1 ]
    [[ "$output" == *"fairshuf: "* ]]
}

@test "bench text output names the compiler and the ratios" {
    run "$FS_BIN" bench --sizes=1000 --runs=1 --min-time=1 --rng=xoshiro256ss
    [ "$status" -eq 0 ]
    [[ "$output" == *"compiler: fairshuf built by "* ]]
    [[ "$output" == *"x memcpy"* ]]
    [[ "$output" == *"fairshuf "*"xoshiro256ss"* ]]
}

@test "bench --algorithm=all skips quadratic ones at large n, and says so" {
    run bash -c "'$FS_BIN' bench --sizes=30000 --runs=1 --min-time=1 --rng=xoshiro256ss --algorithm=all --format=json 2>/dev/null"
    [ "$status" -eq 0 ]
    [[ "$output" == *'"impl": "sattolo"'* ]]
    [[ "$output" != *'"impl": "fisher-yates"'* ]]
    run bash -c "'$FS_BIN' bench --sizes=30000 --runs=1 --min-time=1 --rng=xoshiro256ss --algorithm=fisher-yates --format=json 2>&1 >/dev/null"
    [[ "$output" == *"note: fisher-yates (xoshiro256ss) not run at n = 30000: O(n^2)"* ]]
    run "$FS_BIN" bench --sizes=30000 --runs=1 --min-time=1 --rng=xoshiro256ss --algorithm=fisher-yates
    [[ "$output" == *"note: fisher-yates (xoshiro256ss) not run at n = 30000"* ]]
}

@test "bench names every baseline it cannot run, in the output" {
    empty="$BATS_TEST_TMPDIR/nobench"
    mkdir -p "$empty"
    run env FAIRSHUF_BENCH_DIR="$empty" "$FS_BIN" bench --sizes=100 --runs=1 --min-time=1 --rng=xoshiro256ss
    [ "$status" -eq 0 ]
    [[ "$output" == *"note: std::shuffle skipped: $empty/baseline_std not built ('make bench'"* ]]
    [[ "$output" == *"note: gsl_ran_shuffle skipped: $empty/baseline_gsl not built"* ]]
    [[ "$output" == *"note: rip_shuffle skipped: $empty/ripbench not found"* ]]
    run env FAIRSHUF_BENCH_DIR="$empty" "$FS_BIN" bench --sizes=100 --runs=1 --min-time=1 --baseline=rip=/nonexistent/ripbench --format=json
    [ "$status" -eq 0 ]
    [[ "$output" == *"note: rip_shuffle skipped: /nonexistent/ripbench not found"* ]]
}

@test "bench --baseline=rip=PATH runs an external program interleaved, with per-run ratios" {
    # a stand-in for ripbench: same protocol (N MIN_MS REPS -> "median min max v...")
    fake="$BATS_TEST_TMPDIR/fakerip"
    printf '#!/bin/sh\necho "2.5000 2.5000 2.5000 2.5000"\n' > "$fake"
    chmod +x "$fake"
    run bash -c "'$FS_BIN' bench --sizes=1000 --runs=3 --min-time=1 --rng=xoshiro256ss --baseline=rip=$fake --format=json 2>/dev/null"
    [ "$status" -eq 0 ]
    echo "$output" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
rip = [r for r in rows if r["impl"] == "rip_shuffle"]
assert len(rip) == 1 and rip[0]["ns_per_element"] == 2.5, rip
for r in rows:
    q = r["ratios"]["rip"]
    # the same divisor every run: the median ratio is the median / 2.5
    assert abs(q["median"] - r["ns_per_element"] / 2.5) <= 1e-3 + 1e-3 * q["median"], r
'
    run "$FS_BIN" bench --sizes=1000 --runs=1 --min-time=1 --rng=xoshiro256ss --baseline=rip=$fake
    [[ "$output" == *"x rip"* ]]
    run "$FS_BIN" bench --baseline=foo=/bin/true
    [ "$status" -eq 2 ]
    [[ "$output" == *"invalid baseline"* ]]
}

@test "bench --svg writes a well-formed SVG" {
    svg="$BATS_TEST_TMPDIR/b.svg"
    run "$FS_BIN" bench --sizes=100,1000 --runs=1 --min-time=1 --svg="$svg"
    [ "$status" -eq 0 ]
    python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == "svg"' "$svg"
    [ -z "$(ls "$BATS_TEST_TMPDIR" | grep tmp)" ]
}

@test "bench rejects bad options with a message and no output" {
    run "$FS_BIN" bench --format=xml
    [ "$status" -eq 2 ]
    [[ "$output" == *"invalid format"* ]]
    run "$FS_BIN" bench --sizes=abc
    [ "$status" -ne 0 ]
    [[ "$output" == *"invalid size"* ]]
    run "$FS_BIN" bench --sizes=1
    [ "$status" -eq 2 ]
    run "$FS_BIN" bench --rng=nope
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown generator"* ]]
    run "$FS_BIN" bench --threads=0
    [ "$status" -eq 2 ]
    run "$FS_BIN" bench -j 0
    [ "$status" -eq 2 ]
    # no short letter that means something else in GNU shuf
    run "$FS_BIN" bench -n 5
    [ "$status" -eq 2 ]
    run "$FS_BIN" bench -r x
    [ "$status" -eq 2 ]
    run "$FS_BIN" bench --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--sizes"* ]]
}

@test "bench: progress on a terminal (a pty), erased; never in a pipe" {
    command -v script
    cd "$BATS_TEST_TMPDIR"
    a="--sizes=1e3,1e4 --runs=2 --min-time=1 --rng=xoshiro256ss"
    script -qec "'$FS_BIN' bench $a --progress > /dev/null" /dev/null > pty.txt
    grep -q "fairshuf: bench n=1000: .*% .* of [0-9]* runs, .* runs/s, ETA" pty.txt
    grep -q "fairshuf: bench n=10000: " pty.txt
    # erased: the last thing on the line is blanks after a carriage return
    tail -c 3 pty.txt | od -c | grep -q '\\r'
    # in a pipe, without --progress: no progress line on stderr
    "$FS_BIN" bench $a 2> err.txt | grep -q "n = 10000"
    ! grep -q "runs/s" err.txt
    # --no-progress on a terminal: the tables, no progress line
    script -qec "'$FS_BIN' bench $a --no-progress" /dev/null > pty2.txt
    ! grep -q "runs/s" pty2.txt
}

@test "bench/counts.sh: one shuffle's counts per element beside rip_shuffle's (a stand-in here)" {
    command -v valgrind || skip "valgrind is not installed"
    ! ldd "$FS_BIN" 2>/dev/null | grep -q 'libasan\|libtsan' || skip "valgrind does not run sanitizer builds"
    ! readelf -p .comment "$FS_BIN" 2>/dev/null | grep -q clang ||
        skip "Debian's valgrind cannot read clang's debug information"
    cd "$BATS_TEST_DIRNAME/../.."
    # a stand-in for rip_shuffle's driver (N MIN_MS REPS): fairshuf's own
    # driver with xoshiro256ss, so the summary line's ratios are computed
    printf '#!/bin/sh\nexec "%s" "$1" xoshiro256ss "$3" rip\n' "$PWD/$BUILD/bench/counts" > "$BATS_TEST_TMPDIR/rip"
    chmod +x "$BATS_TEST_TMPDIR/rip"
    make -s -C bench counts BUILD="$PWD/$BUILD" > /dev/null
    run env SIZES=3e4 RIP="$BATS_TEST_TMPDIR/rip" BUILD="$BUILD" bench/counts.sh
    [ "$status" -eq 0 ]
    for p in default chacha20 xoshiro256ss rip_shuffle; do
        echo "$output" | grep -qE "^3e4 +$p +[0-9]+\.[0-9]+ " || { echo "no row $p"; false; }
    done
    # xoshiro256ss draws with fewer instructions than ChaCha20; the stand-in
    # is xoshiro256ss with another seed: about the same count
    echo "$output" | awk '$2 == "chacha20" { c = $3 } $2 == "xoshiro256ss" { x = $3 }
                          END { exit !(x < c) }'
    echo "$output" | grep -qE '^summary 3e4: instructions / rip_shuffle: default 1\.[0-9]+, chacha20 1\.[0-9]+, xoshiro256ss (0\.9[5-9]|1\.0[0-5]);'
}

@test "bench/cputime.py: one shuffle's CPU time per element and its ratio to rip_shuffle's (a stand-in here)" {
    # bench/counts is built without the sanitizers, so not against their library
    ! ldd "$FS_BIN" 2>/dev/null | grep -q 'libasan\|libtsan' || skip "a timing bench of a sanitizer build"
    cd "$BATS_TEST_DIRNAME/../.."
    # the stand-in for rip_shuffle's driver (N MIN_MS REPS) is fairshuf's
    # own driver with xoshiro256ss: its ratio to xoshiro256ss is about 1
    printf '#!/bin/sh\nexec "%s" "$1" xoshiro256ss "$3" rip\n' "$PWD/$BUILD/bench/counts" > "$BATS_TEST_TMPDIR/rip"
    chmod +x "$BATS_TEST_TMPDIR/rip"
    make -s -C bench counts BUILD="$PWD/$BUILD" > /dev/null
    run env SIZES=3e4 ROUNDS=3 WORK=3e7 RIP="$BATS_TEST_TMPDIR/rip" BUILD="$BUILD" bench/cputime.py
    [ "$status" -eq 0 ]
    for p in default chacha20 xoshiro256ss rip_shuffle; do
        echo "$output" | grep -qE "^3e4 +$p +[0-9]+\.[0-9]+ " || { echo "no row $p"; false; }
    done
    echo "$output" | awk '$2 == "xoshiro256ss" { r = $5 } $2 == "rip_shuffle" { one = $5 }
                          END { exit !(one == 1 && r > 0.5 && r < 2) }'
    # BASE: another build's driver in the same rounds (here the same build)
    run env SIZES=3e4 ROUNDS=1 WORK=1e6 RIP="$BATS_TEST_TMPDIR/rip" BUILD="$BUILD" BASE="$BUILD" bench/cputime.py
    [ "$status" -eq 0 ]
    echo "$output" | grep -qE "^3e4 +base-default +[0-9]+\.[0-9]+ "
    echo "$output" | grep -qE "^3e4 +base-xoshiro256ss +[0-9]+\.[0-9]+ "
    run env SIZES=3e4 ROUNDS=1 BASE="$BATS_TEST_TMPDIR/none" BUILD="$BUILD" bench/cputime.py
    [ "$status" -ne 0 ]
    [[ "$output" == *"bench/counts: not built"* ]]
    # a driver that fails is reported, not measured
    printf '#!/bin/sh\necho broken >&2\nexit 3\n' > "$BATS_TEST_TMPDIR/rip"
    run env SIZES=3e4 ROUNDS=1 WORK=1e6 RIP="$BATS_TEST_TMPDIR/rip" BUILD="$BUILD" bench/cputime.py
    [ "$status" -ne 0 ]
    [[ "$output" == *"cputime.py: "*"failed"*"broken"* ]]
}

#!/usr/bin/env bats
# `fairshuf bench`: options, JSON schema, SVG, errors.  Tiny sizes and one
# short run each: this checks the tool, not the speed.

@test "bench --format=json prints one object per measurement with the schema" {
    run bash -c "'$FS_BIN' bench --sizes=54,1e3 --runs=1 --min-time=1 --threads=2 --format=json 2>/dev/null"
    [ "$status" -eq 0 ]
    echo "$output" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
keys = {"impl", "rng", "n", "threads", "ns_per_element", "min", "max", "peak_rss_mib"}
assert rows and all(set(r) == keys for r in rows), rows
impls = {r["impl"] for r in rows}
assert {"fairshuf", "durstenfeld-plain", "memcpy"} <= impls, impls
assert {r["n"] for r in rows} == {54, 1000}
assert any(r["impl"] == "fairshuf" and r["threads"] == 2 for r in rows)
assert all(r["min"] <= r["ns_per_element"] <= r["max"] for r in rows)
'
}

@test "bench text output names the compiler and the ratios" {
    run "$FS_BIN" bench --sizes=1000 --runs=1 --min-time=1 --rng=xoshiro256ss
    [ "$status" -eq 0 ]
    [[ "$output" == *"compiler: fairshuf built by "* ]]
    [[ "$output" == *"x memcpy"* ]]
    [[ "$output" == *"fairshuf "*"xoshiro256ss"* ]]
}

@test "bench --algorithm=all skips quadratic ones at large n" {
    run bash -c "'$FS_BIN' bench --sizes=30000 --runs=1 --min-time=1 --rng=xoshiro256ss --algorithm=all --format=json 2>/dev/null"
    [ "$status" -eq 0 ]
    [[ "$output" == *'"impl": "sattolo"'* ]]
    [[ "$output" != *'"impl": "fisher-yates"'* ]]
}

@test "bench --svg writes a well-formed SVG" {
    svg="$BATS_TEST_TMPDIR/b.svg"
    run "$FS_BIN" bench --sizes=100,1000 --runs=1 --min-time=1 --svg="$svg"
    [ "$status" -eq 0 ]
    python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == "svg"' "$svg"
    [ ! -e "$svg.tmp" ]
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
    run "$FS_BIN" bench --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--sizes"* ]]
}

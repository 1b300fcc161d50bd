#!/usr/bin/env bats
# verify.bats -- `fairshuf verify`: verdicts, exit statuses, power demos,
# --input from other programs, pictures, JSON.  Fixed seeds: no flakes.

load long # pick

setup() {
    FS=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    TMP=$(mktemp -d)
}

teardown() {
    rm -rf "$TMP"
}

@test "verify defaults: every fair algorithm passes, every control is flagged" {
    run "$FS" verify --format=json --report="$TMP/r.html" --svg="$TMP/all.svg"
    [ "$status" -eq 0 ]
    echo "$output" > "$TMP/v.json"
    python3 - "$TMP/v.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is True and d["correction"] == "holm"
verdict = {}
for r in d["runs"]:
    verdict.setdefault(r["algorithm"], set()).add(r["verdict"])
    exp = r["expected"]
for r in d["runs"]:
    v = verdict[r["algorithm"]]
    if r["expected"] == "fair":
        assert v == {"fair"}, (r["algorithm"], v)
    else:
        assert "biased" in v, (r["algorithm"], v)
names = {r["algorithm"] for r in d["runs"]}
for a in ["durstenfeld", "inside-out", "fisher-yates", "sattolo", "rejection",
          "sort-key", "naive-swap", "swap-any", "mod-bias", "asf-1999",
          "random-comparator"]:
    assert a in names, a
EOF
    # The HTML report is well-formed XML(XHTML) with one picture per run.
    python3 - "$TMP/r.html" "$TMP/v.json" "$TMP/all.svg" <<'EOF'
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
allsvg = root.findall(".//{http://www.w3.org/2000/svg}svg")
svgs = [s for s in allsvg if s.get("class") != "orders"]
orders = [s for s in allsvg if s.get("class") == "orders"]
runs = json.load(open(sys.argv[2]))["runs"]
assert len(svgs) == len(runs), (len(svgs), len(runs))
# post 002's picture: one bar chart per run with n! <= 720 orders (n=5)
assert len(orders) == sum(1 for r in runs if r["n"] <= 6), len(orders)
for o in orders:
    # a rect per order, besides the background and the fair band
    assert len(o.findall(".//{http://www.w3.org/2000/svg}rect")) - 2 in (120, 24)  # 5!, sattolo (5-1)!
for s in svgs:
    assert len(s.findall(".//{http://www.w3.org/2000/svg}rect")) > 4
assert root.find(".//{http://www.w3.org/1999/xhtml}table") is not None
svg = ET.parse(sys.argv[3]).getroot()
assert svg.tag == "{http://www.w3.org/2000/svg}svg"
EOF
}

@test "verify text: table, verdict line, where the bias is" {
    run "$FS" verify --trials=20000
    [ "$status" -eq 0 ]
    [[ "$output" == *"verdict: OK"* ]]
    [[ "$output" == *"Holm"* ]]
    [[ "$output" == *"swap-any"*"BIASED"* ]]
    [[ "$output" == *"where the bias is"* ]]
    # mod-bias's flaw needs large n: at n=5 alone it passes, and the run
    # says so and fails.
    run "$FS" verify --n=5 --trials=20000
    [ "$status" -eq 3 ]
    [[ "$output" == *"UNEXPECTED"* ]]
    [[ "$output" == *"mod-bias           control fair         fair (UNEXPECTED)"* ]]
    # --verbose keeps every statistic
    run "$FS" verify --n=5 --trials=20000 --verbose
    [ "$status" -eq 3 ]
    [[ "$output" == *"mod-bias           control     5     20000"*"fair"* ]]
}

@test "verify default view: one screen of 100 columns, mod-bias says why it is flagged" {
    run "$FS" verify --color=never
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -le 30 ]
    while IFS= read -r l; do [ "${#l}" -le 100 ] || { echo "too wide: $l"; return 1; }; done <<< "$output"
    [[ "$output" == *"mod-bias           control fair         BIASED       BIASED (fair at small n; n=2000 caught it)"* ]]
    [ "$(grep -c '^  [a-z0-9-]* n=[0-9]* [a-z-]*:' <<< "$output")" -eq 5 ]   # one "where" line per control
}

@test "verify inconclusive: no test could run -> exit 4, never 'fair'" {
    run "$FS" verify --algorithm=durstenfeld --trials=1
    [ "$status" -eq 4 ]
    [[ "$output" == *"verdict: durstenfeld: inconclusive"* ]]
    printf '0 1 2\n0 1 2\n0 1 2\n0 1 2\n0 1 2\n' > "$TMP/same"
    run "$FS" verify --input="$TMP/same"
    [ "$status" -eq 4 ]
    [[ "$output" != *"verdict: "*": fair"* ]]
    run "$FS" verify --input="$TMP/same" --format=json
    [ "$status" -eq 4 ]
    [[ "$output" == *'"verdict":"inconclusive"'* ]]
    run "$FS" verify --trials=1 --n=5
    [ "$status" -eq 4 ]
    [[ "$output" == *"INCONCLUSIVE"* ]]
}

@test "verify one algorithm: 0 fair, 3 biased, 2 usage" {
    run "$FS" verify --algorithm=durstenfeld --n=6 --trials=20000
    [ "$status" -eq 0 ]
    [[ "$output" == *"verdict: durstenfeld: fair"* ]]
    run "$FS" verify --algorithm=swap-any --n=6 --trials=20000
    [ "$status" -eq 3 ]
    [[ "$output" == *"BIASED"* ]]
    run "$FS" verify --algorithm=asf-1999 --n=8 --trials=5000
    [ "$status" -eq 3 ]
    run "$FS" verify --algorithm=sattolo --n=6 --trials=20000
    [ "$status" -eq 0 ]
    run "$FS" verify --algorithm=nope
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown algorithm"* ]]
    run "$FS" verify --test=bogus
    [ "$status" -eq 2 ]
    run "$FS" verify --alpha=1.5
    [ "$status" -eq 2 ]
    run "$FS" verify --frobnicate
    [ "$status" -eq 2 ]
    run "$FS" verify --algorithm=durstenfeld --n=12 --test=perm
    [ "$status" -eq 2 ]
    [[ "$output" == *"n <= 10"* ]]
    run "$FS" verify --algorithm=durstenfeld --n=6 --trials=100 --test=perm
    [ "$status" -eq 2 ]
    [[ "$output" == *"--trials >= 3600"* ]]
}

@test "verify power: pairs catches a cut deck that position passes" {
    run "$FS" verify --algorithm=cut --n=6 --trials=30000 --test=position
    [ "$status" -eq 0 ]
    run "$FS" verify --algorithm=cut --n=6 --trials=30000 --test=pairs
    [ "$status" -eq 3 ]
    [[ "$output" == *"followed by"* ]]
}

@test "verify power: perm catches a stride rotation whose position matrix is flat" {
    run "$FS" verify --algorithm=stride-rotate --n=7 --trials=30000 --test=position,pairs
    [ "$status" -eq 0 ]
    run "$FS" verify --algorithm=stride-rotate --n=7 --trials=30000 --test=perm
    [ "$status" -eq 3 ]
    [[ "$output" == *"order "* ]]
}

@test "verify --speed check runs: 1e6 trials of n=6 with --test=perm" {
    run "$FS" verify --algorithm=durstenfeld --n=6 --trials=1000000 --test=perm --no-progress
    [ "$status" -eq 0 ]
}

@test "verify --input: GNU shuf output passes (one number per line)" {
    # 1000 runs of GNU shuf, each on its own 64 bytes of a seeded source,
    # are tests/golden/gnu-shuf-4x1000.txt (1000 shuf processes cost about
    # 25 s here): make check runs shuf on the first 25 and compares, make
    # check-long (FS_TEST_LONG=1) on all 1000.  (shuf reads a few of its 64
    # bytes; the same output as when it was given the rest of the source.)
    golden=$BATS_TEST_DIRNAME/../golden/gnu-shuf-4x1000.txt
    runs=$(pick 1000 25)
    "$FS" rng --seed=gnu-shuf --format=raw --bytes=64000 | head -c $((runs * 64)) |
        split -b 64 --filter='shuf -e 0 1 2 3 --random-source=/dev/stdin' > "$TMP/own.txt"
    head -n $((runs * 4)) "$golden" | cmp - "$TMP/own.txt"
    cp "$golden" "$TMP/shuf.txt"
    [ "$(wc -l < "$TMP/shuf.txt")" -eq 4000 ]
    run "$FS" verify --input="$TMP/shuf.txt"
    [ "$status" -eq 0 ]
    [[ "$output" == *"n=4"* || "$output" == *"    4      1000"* ]]
    [[ "$output" == *"fair"* ]]
    # the same joined into lines, from stdin, and comma-separated, 1-based
    paste -d' ' - - - - < "$TMP/shuf.txt" > "$TMP/lines.txt"
    run "$FS" verify --input=- < "$TMP/lines.txt"
    [ "$status" -eq 0 ]
    awk '{ print $1+1 "," $2+1 "," $3+1 "," $4+1 }' "$TMP/lines.txt" > "$TMP/c1.txt"
    run "$FS" verify --input="$TMP/c1.txt" --format=json
    [ "$status" -eq 0 ]
    [[ "$output" == *'"trials":1000'* ]]
}

@test "verify --input: a biased file fails" {
    "$FS" perm 4 --count=2000 --algorithm=swap-any --seed=7 > "$TMP/bad.txt"
    run "$FS" verify --input="$TMP/bad.txt"
    [ "$status" -eq 3 ]
    [[ "$output" == *"BIASED"* ]]
    # a game server that never moves the last card
    for i in $(seq 300); do echo "1 0 2 3"; echo "0 2 1 3"; echo "2 1 0 3"; done > "$TMP/stuck.txt"
    run "$FS" verify --input="$TMP/stuck.txt"
    [ "$status" -eq 3 ]
}

@test "verify --input gives the same answer as verify --algorithm with the same seed" {
    "$FS" perm 5 --count=20000 --seed=same --algorithm=inside-out > "$TMP/p.txt"
    run "$FS" verify --input="$TMP/p.txt" --format=json
    a=$(echo "$output" | python3 -c 'import json,sys; print([t.get("statistic") for t in json.load(sys.stdin)["runs"][0]["tests"]])')
    run "$FS" verify --algorithm=inside-out --n=5 --trials=20000 --seed=same --format=json
    b=$(echo "$output" | python3 -c 'import json,sys; print([t.get("statistic") for t in json.load(sys.stdin)["runs"][0]["tests"]])')
    [ "$a" = "$b" ]
}

@test "verify --input: malformed lines name the line number" {
    printf '0 1 2\n2 1 0\n1 x 0\n' > "$TMP/m1"
    run "$FS" verify --input="$TMP/m1"
    [ "$status" -eq 1 ]
    [[ "$output" == *"m1:3: not a number: 'x'"* ]]
    printf '0 1 2\n2 2 0\n' > "$TMP/m2"
    run "$FS" verify --input="$TMP/m2"
    [ "$status" -eq 1 ]
    [[ "$output" == *"m2:2: not a permutation"* ]]
    printf '0 1 2\n2 1 0 3\n' > "$TMP/m3"
    run "$FS" verify --input="$TMP/m3"
    [ "$status" -eq 1 ]
    [[ "$output" == *"m3:2: 4 numbers, expected 3"* ]]
    printf '0 1 2\n1 2 3\n' > "$TMP/m4"
    run "$FS" verify --input="$TMP/m4"
    [ "$status" -eq 1 ]
    [[ "$output" == *"m4:2: 3 is out of range 0..2"* ]]
    printf '0 1 2\n' > "$TMP/m5"
    run "$FS" verify --input="$TMP/m5" --n=4
    [ "$status" -eq 1 ]
    [[ "$output" == *"m5:1: 3 numbers, but --n=4"* ]]
    printf '0\n1\n2\n2\n1\n' > "$TMP/m6"
    run "$FS" verify --input="$TMP/m6"
    [ "$status" -eq 1 ]
    [[ "$output" == *"m6:5: input ends inside a permutation (2 of 3 numbers)"* ]]
    : > "$TMP/empty"
    run "$FS" verify --input="$TMP/empty"
    [ "$status" -eq 1 ]
    run "$FS" verify --input="$TMP/does-not-exist"
    [ "$status" -eq 1 ]
    [[ "$output" == *"does-not-exist"* ]]
}

@test "verify --svg writes a valid standalone SVG with title, axes and legend" {
    run "$FS" verify --algorithm=asf-1999 --n=8 --trials=5000 --svg="$TMP/h.svg"
    [ "$status" -eq 3 ]
    python3 - "$TMP/h.svg" <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == ns + "svg"
assert root.find(ns + "title") is not None
texts = " ".join(t.text or "" for t in root.iter(ns + "text"))
for word in ["position", "element", "legend", "asf-1999", "BIASED"]:
    assert word in texts, word
assert len(root.findall(".//" + ns + "rect")) >= 64
EOF
    # a failed write leaves nothing and says why
    run "$FS" verify --algorithm=durstenfeld --trials=1000 --svg="$TMP/no/such/dir/h.svg"
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot write SVG"* ]]
}

@test "verify: coloured heat map only when forced or on a terminal" {
    run "$FS" verify --algorithm=asf-1999 --n=6 --trials=5000 --color=always
    [[ "$output" == *$'\033[48;2;'* ]]
    [[ "$output" == *"legend"* ]]
    run "$FS" verify --algorithm=asf-1999 --n=6 --trials=5000
    [[ "$output" != *$'\033['* ]]
}

@test "verify: entropy accounting says when most orders are unreachable" {
    run "$FS" verify --n=52 --rng=mt19937 --algorithm=durstenfeld --trials=2000
    [ "$status" -eq 3 ] # a failing verdict of its own (issue 30)
    [[ "$output" == *"log2(52!) = 225.6 bits"* ]]
    [[ "$output" == *"MOST ORDERS ARE UNREACHABLE"* ]]
    run "$FS" verify --n=52 --algorithm=durstenfeld --trials=2000
    [[ "$output" == *"every order is reachable"* ]]
}

@test "verify --help and --version" {
    run "$FS" verify --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--input=FILE"* ]]
    run "$FS" verify --version
    [ "$status" -eq 0 ]
}

@test "verify: post 002's picture, a bar per order with the fair band" {
    run "$FS" verify --algorithm=asf-1999 --n=4 --trials=24000 --color=never
    [ "$status" -eq 3 ]
    [[ "$output" == *"how often each of the 24 orders came up (24000 trials)"* ]]
    [ "$(grep -cE '^[0-3] [0-3] [0-3] [0-3] ' <<< "$output")" -eq 24 ]
    [[ "$output" == *"24 of 24 orders outside"* ]]
    # a fair shuffle: (almost) every bar ends inside the band
    run "$FS" verify --algorithm=durstenfeld --n=4 --trials=24000 --color=never
    [ "$status" -eq 0 ]
    [[ "$output" == *" 0 of 24 orders outside"* ]]
    # --input counts the orders too
    "$FS" perm 3 --count=600 --seed=o > "$TMP/p3.txt"
    run "$FS" verify --input="$TMP/p3.txt" --color=never
    [[ "$output" == *"each of the 6 orders came up (600 trials)"* ]]
}

@test "verify --swaps: the sweep sees post 001's 27 swaps, loses power as N grows" {
    run "$FS" verify --swaps=27,100,1000 --seed=sweep
    [ "$status" -eq 0 ]
    [[ "$output" == *"stays home with"* ]]
    [ "$(awk '$1 == 27 { print $NF }' <<< "$output")" = BIASED ]
    [ "$(awk '$1 == 100 { print $NF }' <<< "$output")" = BIASED ]
    [ "$(awk '$1 == 1000 { print $NF }' <<< "$output")" = fair ]
    run "$FS" verify --swaps=27 --algorithm=durstenfeld
    [ "$status" -eq 2 ]
    run "$FS" verify --swaps=x
    [ "$status" -eq 2 ]
}

@test "verify --swaps --svg: the sweep as a plot against N (a dot per count, the exact curve, the noise line)" {
    run "$FS" verify --swaps=27,100,1000 --seed=sweep --svg="$TMP/s.svg"
    [ "$status" -eq 0 ]
    python3 - "$TMP/s.svg" <<'PY'
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
assert d.documentElement.tagName == "svg"
dots = [c.getAttribute("fill") for c in d.getElementsByTagName("circle")]
# a dot per swap count (and three in the legend): 27 and 100 red, 1000 grey
assert dots[:3] == ["#d62728", "#d62728", "#888"], dots
assert len(d.getElementsByTagName("polyline")) == 1
text = " ".join(t.firstChild.data for t in d.getElementsByTagName("text"))
assert "smallest excess 10000 trials can see" in text, text
assert "never 0" in text and "random swaps N" in text, text
PY
    [ -z "$(ls "$TMP" | grep tmp)" ]
}

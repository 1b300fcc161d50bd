#!/usr/bin/env bats
# trust.bats -- issue 30 ("Trust, round three"): whole records when the
# generator fails in mid-stream, fs_rng_error, error messages that say
# what and why, and the small promises of the docs.

setup() {
    FS=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    FR=${FS_FAILRANDOM:-$BATS_TEST_DIRNAME/../../build/tests/failrandom.so}
    T=$(mktemp -d)
    cd "$T"
}

teardown() {
    cd /
    rm -rf "$T"
}

# dry CMD...: CMD with the OS refusing randomness after its third call
# (in mid-stream: the first records are made, then a re-key fails).
dry() {
    LD_PRELOAD="$FR" FS_FAILRANDOM_AFTER=3 "$@"
}

@test "M9: perm --count ends with whole permutations when the generator fails" {
    [ -e "$FR" ]
    run dry "$FS" perm 1000 --count=2000
    [ "$status" -eq 1 ]
    [[ "$output" == *"fairshuf: shuffle: the operating system refused randomness" ]]
    dry "$FS" perm 1000 --count=2000 > out 2>/dev/null || true
    [ -s out ] && [ "$(tail -c 1 out | od -An -c | tr -d ' ')" = '\n' ]
    lines=$(wc -l < out)
    [ "$lines" -gt 0 ] && [ "$lines" -lt 2000 ]
    # every line a permutation of 0..999
    awk '{ if (NF != 1000) exit 1; delete s; for (i = 1; i <= NF; i++) s[$i] = 1;
           for (i = 0; i < 1000; i++) if (!(i in s)) exit 1 }' out
}

@test "M9: deal --count ends with whole deals when the generator fails" {
    [ -e "$FR" ]
    for args in "--format=tsv" "--format=jsonl" "--hands=5,5 --format=tsv" \
                "--game=bridge --format=jsonl"; do
        st=0
        dry "$FS" deal --count=30000 $args > out 2>/dev/null || st=$?
        [ "$st" -eq 1 ] || { echo "$args: status $st"; return 1; }
        [ -s out ] && [ "$(tail -c 1 out | od -An -c | tr -d ' ')" = '\n' ] \
            || { echo "$args: ends in mid-record"; tail -c 80 out; return 1; }
        # every record whole: the same number of fields on every line
        case $args in
        *jsonl*) python3 -c 'import json, sys
n = {len(json.loads(l)["hands"]) for l in open(sys.argv[1])}
assert len(n) == 1, n' out || { echo "$args"; return 1; } ;;
        *) [ "$(awk -F'\t' '{print NF}' out | sort -u | wc -l)" = 1 ] \
               || { echo "$args: uneven records"; return 1; }
           [ "$(awk '{print NF}' out | sort -u | wc -l)" = 1 ] \
               || { echo "$args: a short last record"; return 1; } ;;
        esac
    done
}

@test "verdict: a 1% single-cell bias at 100,000 trials is BIASED, by max-cell" {
    python3 "$BATS_TEST_DIRNAME/onecell.py" 6 100000 0.01 2 > oc
    run "$FS" verify --input=oc --format=json
    [ "$status" -eq 3 ]
    echo "$output" > v.json
    python3 - v.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
t = {x["test"]: x for x in r["tests"]}
assert r["verdict"] == "biased"
assert t["max-cell"]["rejected"] and t["max-cell"]["worst"][0]["cell"] == "element 0 at position 0"
assert t["max-cell"]["df"] == 36 # the number of cells corrected for
assert not t["position"]["rejected"] # the chi-square alone misses it
assert r["where"].startswith("oc n=6 max-cell: element 0 at position 0")
PY
    # every seed of the same bias: max-cell rejects
    for s in 1 3 4; do
        python3 "$BATS_TEST_DIRNAME/onecell.py" 6 100000 0.01 $s > oc
        "$FS" verify --input=oc --test=max-cell > /dev/null && { echo "seed $s passed"; return 1; }
    done
    true
}

@test "verdict: negative controls: fair input and fair algorithms pass max-cell at fixed seeds" {
    for s in 1 2 3; do
        python3 "$BATS_TEST_DIRNAME/onecell.py" 6 100000 0 $s > f
        run "$FS" verify --input=f
        [ "$status" -eq 0 ] || { echo "fair input, seed $s: $output"; return 1; }
    done
    for a in durstenfeld fisher-yates; do
        for n in 6 20; do
            run "$FS" verify -a $a -N $n --trials=100000 --test=max-cell --seed=trust
            [ "$status" -eq 0 ] || { echo "$a n=$n: $output"; return 1; }
        done
    done
    run "$FS" verify -a sattolo -N 7 --trials=50000 --test=max-cell --seed=trust
    [ "$status" -eq 0 ]
}

@test "verdict: every verdict states what this trial count can and cannot see" {
    run "$FS" verify -a durstenfeld -N 6 --trials=100000
    [ "$status" -eq 0 ]
    [[ "$output" == *"power: at 100000 trials (n=6) a one-cell bias under 0.76%"*"1% needs 58123 trials"* ]]
    while IFS= read -r l; do [ "${#l}" -le 100 ] || { echo "too wide: $l"; return 1; }; done <<< "$output"
    run "$FS" verify -a durstenfeld -N 6 --trials=100000 --bias=0.5
    [[ "$output" == *"0.5% needs 232492 trials"* ]]
    run "$FS" verify -a durstenfeld -N 6 --bias=0
    [ "$status" -eq 2 ]
    run "$FS" verify -a durstenfeld -N 6 --trials=100000 --format=json
    echo "$output" > v.json
    python3 - v.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["power"]
assert p["n"] == 6 and p["trials"] == 100000 and p["stated_bias"] == 0.01
assert abs(p["detectable_bias"] - 0.0076) < 0.0001 and p["trials_needed"] == 58123
PY
    # and the stated figure holds: at 58123 trials the 1% bias is seen
    python3 "$BATS_TEST_DIRNAME/onecell.py" 6 58123 0.01 7 > oc
    run "$FS" verify --input=oc
    [ "$status" -eq 3 ]
}

@test "verdict: a generator that cannot reach most orders fails (exit 3, own wording)" {
    run "$FS" verify -N 52 --rng=delphi -a durstenfeld --trials=2000
    [ "$status" -eq 3 ]
    [[ "$output" == *"verdict: durstenfeld: FAILS (unreachable orders); the tests alone say fair"* ]]
    [[ "$output" == *"UNREACHABLE ORDERS: delphi (32-bit seed) can produce at most 2^32 of the 2^225.6"* ]]
    run "$FS" verify -N 52 --rng=delphi -a durstenfeld --trials=2000 --format=json
    [ "$status" -eq 3 ]
    [[ "$output" == *'"unreachable":"UNREACHABLE ORDERS: delphi'* ]]
    # controls: enough seed bits (mt19937 at 12 cards: 32 >= 28.8), and
    # the cryptographic default at 52 cards, pass
    run "$FS" verify -N 12 --rng=mt19937 -a durstenfeld --trials=20000
    [ "$status" -eq 0 ]
    run "$FS" verify -N 52 -a durstenfeld --trials=2000
    [ "$status" -eq 0 ] && [[ "$output" != *UNREACHABLE* ]]
    # and --help's exit paragraph names this verdict, not only "biased"
    "$FS" verify --help | tr '\n' ' ' | tr -s ' ' |
        grep -q 'Exit status: 0 fair (all mode: every algorithm as expected), 3 biased or unreachable orders'
}

@test "verdict: the HTML report and JSON carry the 'where the bias is' line" {
    run "$FS" verify -a asf-1999 -N 6 --trials=20000 --report=r.html --format=json
    [ "$status" -eq 3 ]
    echo "$output" > v.json
    where=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["where"])' v.json)
    [[ "$where" == "asf-1999 n=6 "* ]]
    python3 - r.html "$where" <<'PY'
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
lis = [li for ul in d.getElementsByTagName("ul") if ul.getAttribute("class") == "where"
       for li in ul.getElementsByTagName("li")]
assert [li.firstChild.data for li in lis] == [sys.argv[2]], lis
assert any(p.getAttribute("class") == "power" for p in d.getElementsByTagName("p"))
PY
    # a fair run has no where line
    run "$FS" verify -a durstenfeld -N 6 --trials=20000 --format=json
    [[ "$output" == *'"where":null'* ]]
}

@test "lows: messages say the minimum, the reason, once" {
    seq 1000 > s
    run "$FS" lines --memory=1K s
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: invalid memory size: '1K': the minimum is 4K (4096 bytes)" ]
    run "$FS" verify --trials=-1
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: invalid trial count: '-1': must be at least 1" ]
    run "$FS" verify --trials=0
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: invalid trial count: '0': must be at least 1" ]
    seq 100000 > big
    run bash -c '"$0" lines big > /dev/full' "$FS"
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: write error: No space left on device" ] # once
    run "$FS" verify -a durstenfeld -N 3 --trials=100 --svg=/nonexistent/x.svg
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: /nonexistent/x.svg: cannot write SVG: No such file or directory" ]
}

@test "lows: fairshuf-mpi names a bad option and a tiny --memory in bytes" {
    MPI_BIN="$(dirname "$FS")/fairshuf-mpi"
    [ -x "$MPI_BIN" ]
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
    # under ASan: Open MPI's own allocations at exit are not ours (mpi.bats)
    export LSAN_OPTIONS="suppressions=$BATS_TEST_DIRNAME/../../mpi/lsan.supp:print_suppressions=0"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
    run "$MPI_BIN" array -5
    [ "$status" -eq 2 ]
    [[ "$output" == "fairshuf-mpi: invalid option -- '5'"* ]]
    seq 100 > s
    run mpirun -np 1 "$MPI_BIN" lines --memory=1 -o o.%d s
    [ "$status" -ne 0 ]
    [[ "$output" == *"more than --memory=1 bytes"* ]]
}

@test "lows: control characters and invalid UTF-8 in a file name: valid XHTML, SVG and JSON" {
    name=$(printf 'bad\001\377\351name \342\202\254')
    python3 "$BATS_TEST_DIRNAME/onecell.py" 4 2000 0 1 > "$name"
    "$FS" verify --input="$name" --format=json --report=r.html --svg=r.svg > v.json
    python3 - <<'PY'
import json, xml.dom.minidom as m
d = json.load(open("v.json", encoding="utf-8"))
assert d["runs"][0]["algorithm"] == "bad\x01\ufffd\ufffdname \u20ac", d["runs"][0]["algorithm"]
for f in ("r.html", "r.svg"):
    m.parse(f)
assert "bad\ufffd\ufffdname \u20ac" in open("r.html", encoding="utf-8").read()
PY
}

@test "lines -r --random-source running dry: the lines drawn so far, as GNU shuf" {
    [ -x /usr/bin/shuf ]
    seq 100 > s
    for size in 3 10 33; do
        head -c $size /dev/zero | tr '\0' '\345' > rs
        for a in "-r -n 100 -e a b c" "-r -e a b c d e" "-r -i 1-1000" "-r -n 70 s"; do
            g=$(/usr/bin/shuf --random-source=rs $a 2>/dev/null | md5sum)
            f=$("$FS" lines --random-source=rs $a 2>/dev/null | md5sum)
            [ "$g" = "$f" ] || { echo "differs: $size $a"; return 1; }
        done
        run "$FS" lines --random-source=rs -r -n 100 -e a b c
        [ "$status" -eq 1 ] && [[ "$output" == *"fairshuf: 'rs': end of file" ]]
    done
    # -o FILE is still never half-written
    printf 'x' > rs
    echo keep > F
    run "$FS" lines --random-source=rs -r -n 100 -e a b c -o F
    [ "$status" -eq 1 ] && [ "$(cat F)" = keep ]
}

@test "docs: stream.md's recurrence table: each check value is what the code prints" {
    doc="$BATS_TEST_DIRNAME/../../docs/stream.md"
    for g in splitmix64 xoshiro256ss pcg64 mt19937 mt19937_64 delphi rand; do
        row=$(grep "^| \`$g\` | .*|.*|$" "$doc" | grep -v 'state from' | tail -1)
        want=$(echo "$row" | awk -F'|' '{print $(NF-1)}' | sed 's/u32://; s/ //g')
        got=$("$FS" rng --rng=$g --seed=1 --count=2 | paste -sd, -)
        [ "$want" = "$got" ] || { echo "$g: doc '$want', code '$got'"; return 1; }
    done
    run "$FS" rng --seed=0000000000000000000000000000000000000000000000000000000000000000 --bytes=16
    grep -q "bytes \`$output\` (RFC 8439 A.1 #1)" "$doc"
}

@test "docs: deal JSON in deal order, text sorted; blackjack's cut; 1024 cards" {
    "$FS" deal --game=holdem --seed=1 --format=json > j
    "$FS" deal --game=holdem --seed=1 --format=tsv > t
    python3 - j t <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))[0]
t = open(sys.argv[2]).read().rstrip("\n").split("\t")
parts = [" ".join(h) for h in d["hands"]] + [" ".join(d[k]) for k in ("flop", "turn", "river")]
assert parts == t, (parts, t)
PY
    # the text sorts what JSON keeps in deal order (flop: 5s Kh 9d -> 5 9 K)
    grep -q '"flop":\["5s","Kh","9d"\]' j
    "$FS" deal --game=holdem --seed=1 | grep -q 'Flop: 5♠ 9♦ K♥'
    # blackjack: cut = shoe length - 78 * decks / 6
    for decks in 6 2 8; do
        "$FS" deal --game=blackjack --decks=$decks --seed=3 --format=json | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
assert d["cut"] == len(d["shoe"]) - 78 * int(sys.argv[1]) // 6, d["cut"]' $decks
    done
    run "$FS" deal --game=blackjack --decks=20
    [ "$status" -eq 2 ] && [[ "$output" == *"at most 1024 cards per shoe"* ]]
    "$FS" deal --game=blackjack --decks=19 > /dev/null # 988 cards
}

@test "docs: perm's keyed output formats, perm 0 --lazy refused, -i 0-2^64-1 refused as GNU" {
    [ "$("$FS" perm 10 --lazy --seed=1)" = "3 5 0 8 2 7 9 1 6 4" ]
    [ "$("$FS" perm 10 --lazy --seed=1 --one-based)" = "4 6 1 9 3 8 10 2 7 5" ]
    [ "$("$FS" perm 10 --lazy --seed=1 --range=2-5)" = "0 8 2 7" ]
    [ "$("$FS" perm 10 --lazy --seed=1 --count=2 --range=0-3)" = $'3 5 0 8\n0 1 3 5' ]
    [ "$("$FS" perm 10 --lazy --seed=1 --count=2 --at=3)" = $'8\n5' ]
    run "$FS" perm 0 --lazy
    [ "$status" -eq 2 ] && [ "$output" = "fairshuf: invalid size: '0': --lazy needs N >= 1" ]
    [ "$("$FS" perm 0 --seed=1 --count=2 | od -An -c | tr -d ' ')" = '\n\n' ]
    run "$FS" lines -i 0-18446744073709551615
    [ "$status" -eq 1 ] && [ "$output" = "fairshuf: invalid input range: '0-18446744073709551615'" ]
    run /usr/bin/shuf -i 0-18446744073709551615
    [ "$status" -eq 1 ]
    [ "$("$FS" lines -i 18446744073709551615-18446744073709551615)" = 18446744073709551615 ]
}

@test "docs: verify.md's exit statuses and stream.md's JSON deal order are what the binary does" {
    doc="$BATS_TEST_DIRNAME/../../docs"
    # verify.md states "Exit status: 0 fair, **3 biased** ..., 4 inconclusive"
    line=$(tr '\n' ' ' < "$doc/verify.md" | grep -o 'Exit status: 0 fair, \*\*[0-9] biased\*\*.*[0-9] inconclusive')
    biased=$(echo "$line" | sed 's/.*\*\*\([0-9]\) biased.*/\1/')
    inconc=$(echo "$line" | sed 's/.* \([0-9]\) inconclusive.*/\1/')
    run "$FS" verify --algorithm=swap-any --n=5 --trials=20000 --seed=1
    [ "$status" -eq "$biased" ] || { echo "doc $biased, binary $status"; return 1; }
    run "$FS" verify --algorithm=fisher-yates --n=5 --trials=20000 --seed=1
    [ "$status" -eq 0 ]
    run "$FS" verify --algorithm=fisher-yates --n=5 --trials=3 --seed=1
    [ "$status" -eq "$inconc" ] || { echo "doc $inconc, binary $status"; return 1; }
    # stream.md §6: JSON in deal order, only the text sorts (no "sorted for display" for JSON)
    ! grep -q 'text and JSON formats show the same deal (hands sorted' "$doc/stream.md"
    tr '\n' ' ' < "$doc/stream.md" | grep -q '`--format=json` and `jsonl` show every part \*\*in deal order\*\*'
    "$FS" deal --game=doudizhu --seed=5 --format=json > j
    "$FS" deal --game=doudizhu --seed=5 --format=tsv > t
    python3 -c '
import json, sys
d = json.load(open("j"))[0]
t = open("t").read().rstrip("\n").split("\t")
assert [" ".join(h) for h in d["hands"]] == t[:3], (d, t)'
}

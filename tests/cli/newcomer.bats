#!/usr/bin/env bats
# newcomer.bats -- fairshuf as a new user meets it: every README and
# --help example runs and has the documented shape; one short-option
# letter means one thing in every subcommand; every error path says
# "fairshuf: what: why" with the documented exit status (fairshuf(1),
# EXIT STATUS: 0 success, 1 runtime failure, 2 usage, 3 biased, 4
# inconclusive); progress shows on a terminal, never in a pipe.

setup() {
    F=${FS_BIN:-$BATS_TEST_DIRNAME/../../build/fairshuf}
    T=$(mktemp -d)
    cd "$T"
}

teardown() {
    rm -rf "$T"
}

# The examples of SUB's --help, one per line, "fairshuf" made the binary.
examples() {
    "$F" "$1" --help | sed -n '/^Examples\{0,1\}:/,$p' | grep '^  ' |
        sed -e 's/^  //' -e "s|fairshuf |$F |g"
}

@test "newcomer: the README quick start runs and has the documented shape" {
    run "$F" perm 10
    [ "$status" -eq 0 ]
    [ "$(tr ' ' '\n' <<< "$output" | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 " ]
    run "$F" perm 4 --count=2 --seed=demo
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 2 ]
    [ "$("$F" rng --rng=mt19937 --seed=5489 --count=10000 | tail -1)" = 4123659995 ]
    run bash -c "seq 1000000 | '$F' lines -n 3 --seed=demo"
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 3 ]
    run "$F" deal --game=doudizhu
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 4 ]
    run "$F" verify --color=never
    [ "$status" -eq 0 ]
    [[ "$output" == *"verdict: OK"* ]]
}

@test "newcomer: the README's deal, lines and verify examples" {
    seq 100 > data.txt
    run "$F" lines data.txt
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 100 ]
    run "$F" lines --seed=run1 -n 10 data.txt
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 10 ]
    printf 'h\n1\n2\n' > table.csv
    [ "$("$F" lines --header=1 --seed=7 table.csv | head -1)" = h ]
    run "$F" lines -i 1-18446744073709551614 -n 3
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 3 ]
    run "$F" deal --game=holdem --players=4 --lang=zh
    [ "$status" -eq 0 ]
    run "$F" deal --game=mahjong --format=tsv --seed=demo
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 1 ]
    run "$F" deal --game=list
    [ "$status" -eq 0 ]
    run "$F" deal --game=holdem --rng=delphi --algorithm=asf-1999 --seed=45296789
    [ "$status" -eq 0 ]
    run "$F" verify --algorithm=asf-1999 --n=8 --color=always
    [ "$status" -eq 3 ]
    [[ "$output" == *$'\033[48;2;'* ]]
    run "$F" verify --report=report.html --format=json
    [ "$status" -eq 0 ] && [ -s report.html ]
}

@test "newcomer: every --help example runs (verdicts: 0 fair, 3 biased)" {
    for sub in perm rng deal verify; do
        while IFS= read -r cmd; do
            case $cmd in
            *dieharder*) continue ;; # endless raw stream: tests/cli/verify_dieharder.bats
            esac
            # make check: verify's last example reads the 1000 runs of GNU
            # shuf of tests/golden/gnu-shuf-4x1000.txt (1000 shuf processes
            # cost ~25 s here; verify.bats reruns shuf on some of them);
            # make check-long runs the loop as printed
            loop='for i in $(seq 1000); do shuf -e 0 1 2 3; done'
            if [ -z "${FS_TEST_LONG:-}" ] && [[ $cmd == "$loop | "* ]]; then
                cmd="cat '$BATS_TEST_DIRNAME/../golden/gnu-shuf-4x1000.txt'${cmd#"$loop"}"
            fi
            # to a file: `run` would split a million-line output into $lines
            status=0
            bash -c "$cmd" >out 2>&1 || status=$?
            want=0
            [[ $cmd == *swap-any* ]] && want=3
            # a 32-bit-seeded mt19937 cannot reach most orders of 52: it fails (issue 30)
            [[ $cmd == *"--n=52 --rng=mt19937"* ]] && want=3
            # unseeded permutations piped into verify: the verdict itself is
            # random (a fair source is flagged with probability alpha), so
            # either verdict is right; an error or "inconclusive" is not
            [[ $cmd == *"| "*verify* ]] && want="0|3"
            [[ "|$want|" == *"|$status|"* ]] || { echo "$cmd: status $status"; return 1; }
            [ -s out ] || { echo "$cmd: no output"; return 1; }
        done < <(examples "$sub")
    done
    [ "$(examples perm | wc -l)" -ge 4 ]
    # perm -1 7: one-based, documented in --help
    [ "$("$F" perm -1 7 | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "1 2 3 4 5 6 7 " ]
}

@test "newcomer: fair and attack --help examples, with their files" {
    C=$("$F" fair commit --server-seed-file=seed.hex)
    [ ${#C} -eq 64 ]
    run "$F" fair deal --server-seed-file=seed.hex --client-seed=alice --nonce=1
    [ "$status" -eq 0 ]
    # the attack example searches a whole day (10-20 s); the same cards in
    # a one-minute window around the seed must find it
    run "$F" attack --seat=1 --hole=2h,8d --flop=7h,Qs,Qc --window=45266789-45326789
    [ "$status" -eq 0 ]
    [[ "$output" == *"seed 45296789"* ]]
}

@test "newcomer: every --help fits 80 columns and names the manual" {
    for sub in lines perm rng deal fair attack verify bench serve mpd; do
        run "$F" "$sub" --help
        [ "$status" -eq 0 ]
        while IFS= read -r l; do
            [ "${#l}" -le 80 ] || { echo "$sub: ${#l} columns: $l"; return 1; }
        done <<< "$output"
    done
    for sub in perm rng deal fair attack verify bench serve mpd; do
        run "$F" "$sub" --help
        [[ "${lines[-1]}" == "Manual: man "* ]]
    done
    # run from the build tree, where nothing is installed: man -l PATH
    run "$F" verify --help
    page=${lines[-1]#Manual: man -l }
    [ "$page" != "${lines[-1]}" ] && [ -r "$page" ]
    run "$F" --help
    [[ "$output" == *"Manual: man"* ]]
}

# The short letters of every subcommand's --help: "SUB LETTER LONG".
letters() {
    for sub in "$@"; do
        "$F" "$sub" --help | grep -oE -- '(^|[^a-z-])-[A-Za-z0-9], --[a-z-]+' |
            sed -E 's/^[^-]*-([A-Za-z0-9]), --([a-z-]+)$/\1 \2/' |
            sed "s/^/$sub /"
    done
}

@test "newcomer: no short option letter has two meanings (lines keeps GNU shuf's)" {
    letters lines perm rng deal fair attack verify certify bench > all.txt
    [ "$(wc -l < all.txt)" -ge 40 ]
    # one meaning = one long name; "count" and "trials" are both "how many"
    sed -i 's/ trials$/ count/' all.txt
    # no exception: lines' -t is sort's field separator, threads are -j
    grep -q '^lines t field-separator$' all.txt
    bad=$(awk '{ m[$2] = m[$2] " " $3; if (!(($2, $3) in seen)) { seen[$2, $3] = 1; n[$2]++ } }
               END { for (l in n) if (n[l] > 1) print "-" l ":" m[l] }' all.txt)
    [ -z "$bad" ] || { echo "$bad"; return 1; }
    # GNU shuf's letters are lines' and mean what they mean there
    grep -q '^lines r repeat$' all.txt
    grep -q '^lines n head-count$' all.txt
    grep -q '^lines T temporary-directory$' all.txt
    grep -q '^lines i input-range$' all.txt
    # and docs/cli.md's table lists every letter with the same long name
    while read -r sub l long; do
        [ "$long" = count ] && continue
        grep -qE "^\| *-$l *\| *--$long" "$BATS_TEST_DIRNAME/../../docs/cli.md" ||
            { echo "docs/cli.md lacks -$l --$long ($sub)"; return 1; }
    done < all.txt
}

# status, message, command...: nothing on stdout, "fairshuf: MESSAGE".
err() {
    local want=$1 msg=$2; shift 2
    run --separate-stderr "$F" "$@"
    [ "$status" -eq "$want" ] || { echo "$*: status $status, want $want"; return 1; }
    [ -z "$output" ] || { echo "$*: stdout: $output"; return 1; }
    [[ "${stderr_lines[0]}" == "fairshuf: "* ]] || { echo "$*: $stderr"; return 1; }
    [[ "$stderr" == *"$msg"* ]] || { echo "$*: $stderr"; return 1; }
    [[ "$stderr" != *"perm:"* && "$stderr" != *"deal:"* && "$stderr" != *"verify:"* && "$stderr" != *"attack:"* ]] ||
        { echo "$*: subcommand prefix: $stderr"; return 1; }
}

@test "newcomer: errors of every subcommand: fairshuf: what: why, usage 2" {
    bats_require_minimum_version 1.5.0
    for sub in perm rng deal fair attack verify bench serve mpd; do
        err 2 "unrecognized option '--bogus'" "$sub" --bogus
    done
    err 1 "unrecognized option '--bogus'" lines --bogus   # GNU shuf's status
    err 2 "missing command" 
    err 2 "unknown command: 'nope'" nope
    # perm
    err 2 "invalid option -- '5'" perm -5
    err 2 "missing N" perm
    err 2 "extra operand '6'" perm 5 6
    err 2 "invalid size: 'x'" perm x
    err 2 "invalid count: '-3': must be 0 or more" perm 5 --count=-3
    err 2 "unknown algorithm: 'x'" perm 5 -a x
    err 2 "unknown generator: 'x'" perm 5 -G x
    err 2 "requires an argument" perm 5 --seed
    # rng
    err 2 "invalid format: 'oct'" rng --format=oct
    err 2 "invalid byte count: 'z'" rng --bytes=z
    # deal
    err 2 "unknown game: 'uno'" deal --game=uno
    err 2 "invalid number of players: '0'" deal --players=0
    err 2 "invalid number of decks: '-1'" deal --decks=-1
    err 2 "11 players: the game takes 2 to 10" deal --game=holdem --players=11
    err 2 "not enough cards" deal --game=shengji --decks=1
    err 2 "invalid format: 'xml'" deal --format=xml
    err 2 "invalid language: 'fr'" deal --lang=fr
    err 2 "extra operand 'x'" deal x
    # attack
    err 2 "no known cards" attack
    err 2 "invalid window '9-1'" attack --known=1:As --window=9-1
    err 2 "invalid position '0'" attack --known=0:As
    err 2 "malformed card code 'Xx'" attack --known=1:Xx
    err 2 "--seat, --hole and --flop go together" attack --seat=1
    err 2 "invalid format: 'jsonl'" attack --known=1:As --format=jsonl
    err 2 "invalid thread count: '65' (1 to 64)" attack --known=1:As --threads=65
    # verify
    err 2 "invalid size: '-3'" verify --n=-3
    err 2 "invalid size: '0'" verify --n=0
    err 2 "invalid trial count: '0': must be at least 1" verify --trials=0
    err 2 "unknown test: 'x'" verify --test=x
    err 2 "invalid alpha" verify --alpha=2
    err 2 "--input and --algorithm are exclusive" verify -I x -a durstenfeld
    err 2 "invalid color: 'x'" verify --color=x
    err 2 "unknown generator: 'x'" verify -G x
    # runtime failures: 1
    err 1 "nope.txt: No such file or directory" verify --input=nope.txt
    printf '0 1\n0 0\n' > bad.txt
    err 1 "bad.txt:2: not a permutation" verify --input=bad.txt
}

@test "newcomer: perm's -1 and negative-looking option values reach getopt" {
    a=$("$F" perm 7 -1 --seed=a)
    [ "$a" = "$("$F" perm -1 7 --seed=a)" ]
    [ "$a" = "$("$F" perm --one-based 7 --seed=a)" ]
    [ "$(tr ' ' '\n' <<< "$a" | sort -n | tr '\n' ' ')" = "1 2 3 4 5 6 7 " ]
    b=$("$F" perm --seed -5 10)
    [ "$b" = "$("$F" perm 10 -s -5)" ]
    [ "$b" = "$("$F" perm 10 --seed=-5)" ]
}

@test "newcomer: verdict statuses 0 fair, 3 biased, 4 inconclusive" {
    run "$F" verify -a durstenfeld -c 20000
    [ "$status" -eq 0 ]
    run "$F" verify -a swap-any -c 20000
    [ "$status" -eq 3 ]
    run "$F" verify -a durstenfeld -c 1
    [ "$status" -eq 4 ]
    for i in 1 2 3 4 5; do echo "0 1 2 3"; done > same.txt
    run "$F" verify --input=same.txt
    [ "$status" -eq 4 ]
    [[ "$output" != *"verdict: same.txt: fair"* ]]
}

@test "newcomer: deal warns for every algorithm not uniform over all deals" {
    bats_require_minimum_version 1.5.0
    run --separate-stderr "$F" deal -a sattolo --seed=1
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"warning: sattolo: not uniform over all deals"* ]]
    run --separate-stderr "$F" deal -a mod-bias --seed=1
    [[ "$stderr" == *"warning: mod-bias"* ]]
    run --separate-stderr "$F" deal -a durstenfeld --seed=1
    [ -z "$stderr" ]
}

@test "newcomer: deal --format=jsonl is one JSON object per deal" {
    "$F" deal --game=poker5 --count=5 --format=jsonl --seed=j > d.jsonl
    [ "$(wc -l < d.jsonl)" -eq 5 ]
    python3 -c '
import json, sys
for line in open("d.jsonl"):
    d = json.loads(line)
    assert d["game"] == "poker5" and len(d["hands"]) == 4, d
'
    # the same deals as the json array
    "$F" deal --game=poker5 --count=5 --format=json --seed=j |
        python3 -c 'import json,sys; [print(json.dumps(d, separators=(",", ":"))) for d in json.load(sys.stdin)]' |
        cmp - d.jsonl
}

@test "newcomer: progress on a terminal (a pty), erased; never in a pipe" {
    command -v script
    script -qec "'$F' deal --count=300000 --format=tsv --progress > /dev/null" /dev/null > pty.txt
    grep -q "fairshuf: deal: " pty.txt
    grep -q "deals/s" pty.txt
    # erased: the last thing on the line is blanks after a carriage return
    tail -c 3 pty.txt | od -c | grep -q '\\r'
    # in a pipe, without --progress: nothing at all on stderr
    "$F" deal --count=300000 --format=tsv 2> err.txt | tail -1 > /dev/null
    [ ! -s err.txt ]
    "$F" verify -a durstenfeld -c 300000 2> err.txt > /dev/null
    [ ! -s err.txt ]
    # --no-progress on a terminal: nothing
    script -qec "'$F' deal --count=300000 --format=tsv --no-progress > /dev/null" /dev/null > pty2.txt
    [ ! -s pty2.txt ]
}

@test "newcomer: heat map without colour is drawn with shading characters" {
    run "$F" verify -a swap-any -N 6 -c 20000 --color=never
    [ "$status" -eq 3 ]
    [[ "$output" != *$'\033'* ]]
    [[ "$output" == *"█+"* ]]
    [[ "$output" == *"legend: · within noise"* ]]
}

@test "newcomer: the demo (scripts/demo.sh, what make demo runs) fits one screen: 60 lines, 100 columns" {
    root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    # the demo names the binary as make demo does: relative to the project
    b=$(realpath --relative-to="$root" "$(dirname "$F")")
    run bash -c "cd '$root' && BUILD='$b' scripts/demo.sh 2>&1 | sed 's/\x1b\[[0-9;]*m//g'"
    [ "$status" -eq 0 ]
    n=$(printf '%s\n' "$output" | wc -l)
    [ "$n" -le 59 ] || { echo "$n lines"; return 1; }   # + make demo's "building" line
    wide=$(printf '%s\n' "$output" | LC_ALL=C.UTF-8 awk '{ if (length($0) > 100) print }')
    [ -z "$wide" ] || { echo "wider than 100: $wide"; return 1; }
}

#!/usr/bin/env bats
# fairshuf deal: formats, games, reproducibility, warnings, errors.

setup() {
    F="$FS_BIN"
}

@test "deal: default is one Dou Dizhu deal, 3 x 17 + 3" {
    run "$F" deal --seed=x
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 4 ]
    [[ ${lines[0]} == "  Player 1: "* ]]
    [[ ${lines[3]} == "  Landlord cards: "* ]]
    for i in 0 1 2; do
        [ "$(echo "${lines[$i]#*:}" | wc -w)" -eq 17 ]
    done
    [ "$(echo "${lines[3]#*:}" | wc -w)" -eq 3 ]
}

@test "deal: text hands sort 3 < ... < A < 2 < small joker < big joker" {
    for seed in 1 2 3 4 5 6 7 8; do
        "$F" deal --seed=$seed | sed 's/^[^:]*://; s/[♠♥♦♣]//g' | awk '
            BEGIN { n = split("3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ", o, " ")
                    for (i = 1; i <= n; i++) rank[o[i]] = i }
            { prev = 0
              for (i = 1; i <= NF; i++) {
                  if (!($i in rank) || rank[$i] < prev) { print "bad: " $0; exit 1 }
                  prev = rank[$i] } }'
    done
}

@test "deal: tsv has one field per hand then the kitty, 54 distinct codes" {
    run "$F" deal --seed=x --format=tsv
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '{print NF}')" -eq 4 ]
    [ "$(printf '%s\n' "$output" | tr '\t ' '\n\n' | sort -u | wc -l)" -eq 54 ]
    printf '%s\n' "$output" | tr '\t ' '\n\n' | grep -qx BJ
    printf '%s\n' "$output" | tr '\t ' '\n\n' | grep -qx RJ
}

@test "deal: seeded output is reproducible and --count deals differ" {
    a=$("$F" deal --game=holdem --seed=s1 --count=5 --format=tsv)
    b=$("$F" deal --game=holdem --seed=s1 --count=5 --format=tsv)
    [ "$a" = "$b" ]
    [ "$(printf '%s\n' "$a" | sort -u | wc -l)" -eq 5 ]
    c=$("$F" deal --game=holdem --seed=s2 --count=5 --format=tsv)
    [ "$a" != "$c" ]
}

@test "deal: golden -- a seeded Durstenfeld Dou Dizhu deal is pinned" {
    run "$F" deal --seed=golden --format=tsv --algorithm=durstenfeld
    [ "$status" -eq 0 ]
    [ "$output" = "$(cat "$BATS_TEST_DIRNAME/../golden/deal-doudizhu-golden.tsv")" ]
}

@test "deal: every game deals, in every format" {
    for g in doudizhu holdem poker5 bridge shengji mahjong blackjack; do
        "$F" deal --game=$g --seed=1 >/dev/null
        "$F" deal --game=$g --seed=1 --format=tsv >/dev/null
        "$F" deal --game=$g --seed=1 --format=json --count=2 | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d) == 2 and "hands" in d[0], d'
    done
}

@test "deal: json has named fields" {
    run "$F" deal --game=holdem --players=3 --seed=j --format=json
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
assert d["game"] == "holdem" and d["players"] == 3
assert len(d["hands"]) == 3 and all(len(h) == 2 for h in d["hands"])
assert len(d["flop"]) == 3 and len(d["turn"]) == 1 and len(d["river"]) == 1'
}

@test "deal: --lang=zh names suits, jokers and the landlord cards in Chinese" {
    run "$F" deal --seed=x --lang=zh
    [ "$status" -eq 0 ]
    [[ $output == *地主牌* ]]
    [[ $output == *玩家1* ]]
    [[ $output == *小王* ]]
    [[ $output == *大王* ]]
    [[ $output =~ (黑桃|红桃|梅花|方块) ]]
}

@test "deal: shengji has two 54-card decks; mahjong 136 tiles in m/p/s/z codes" {
    run "$F" deal --game=shengji --seed=1 --format=tsv
    [ "$(printf '%s\n' "$output" | tr '\t ' '\n\n' | wc -l)" -eq 108 ]
    [ "$(printf '%s\n' "$output" | tr '\t ' '\n\n' | grep -cx RJ)" -eq 2 ]
    run "$F" deal --game=mahjong --seed=1 --format=tsv
    [ "$(printf '%s\n' "$output" | tr '\t ' '\n\n' | wc -l)" -eq 136 ]
    [ "$(printf '%s\n' "$output" | tr '\t ' '\n\n' | grep -cx 7z)" -eq 4 ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '{print NF}')" -eq 6 ]
}

@test "deal: weak generators get a warning on stderr, chacha20 none" {
    run "$F" deal --rng=mt19937 --seed=1
    [ "$status" -eq 0 ]
    [[ $output == *"warning: generator mt19937 has 2^32 seeds"* ]]
    run "$F" deal --game=holdem --rng=delphi --algorithm=asf-1999 --seed=45296789
    [ "$status" -eq 0 ]
    [[ $output == *"warning"* ]]
    [ -z "$("$F" deal --seed=1 2>&1 >/dev/null)" ]
}

@test "deal: the ASF demo deals the 1999 shoe" {
    run "$F" deal --game=holdem --players=6 --rng=delphi --algorithm=asf-1999 --seed=45296789 --format=tsv
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "$(printf '2h 8d\t5d As\t4d Js\tAh 3s\tTs Th\t6c 4c\t7h Qs Qc\t6d\t8s')" ]
}

@test "deal: --game=list names every game" {
    run "$F" deal --game=list
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 7 ]
}

@test "deal: unknown game -> exit 2 with a message" {
    run "$F" deal --game=canasta
    [ "$status" -eq 2 ]
    [[ $output == "fairshuf: unknown game: 'canasta'"* ]]
}

@test "deal: too many players -> exit 2 (usage)" {
    run "$F" deal --game=holdem --players=11
    [ "$status" -eq 2 ]
    [[ $output == *"11 players: the game takes 2 to 10"* ]]
    run "$F" deal --game=doudizhu --players=4
    [ "$status" -eq 2 ]
    [[ $output == *"takes exactly 3"* ]]
}

@test "deal: poker5 --players=1 is a single video-poker hand (post 004's dealPokers(1))" {
    run "$F" deal --game=poker5 --players=1 --seed=vp --format=tsv
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 1 ]
    [ "$(printf '%s\n' "$output" | tr ' \t' '\n\n' | grep -c .)" -eq 5 ]
    run "$F" deal --game=poker5 --players=0
    [ "$status" -eq 2 ]
}

@test "deal: not enough cards in the decks -> exit 2 (usage)" {
    run "$F" deal --game=shengji --decks=1
    [ "$status" -eq 2 ]
    [[ $output == *"not enough cards"* ]]
}

@test "deal: bad options -> messages, nothing on stdout" {
    run "$F" deal --players=0
    [ "$status" -eq 2 ]
    run "$F" deal --count=x
    [ "$status" -eq 2 ]
    run "$F" deal --format=xml
    [ "$status" -eq 2 ]
    run "$F" deal --lang=fr
    [ "$status" -eq 2 ]
    run "$F" deal --rng=nope
    [ "$status" -eq 2 ]
    run "$F" deal --algorithm=nope
    [ "$status" -eq 2 ]
    [ -z "$("$F" deal --game=nope 2>/dev/null)" ]
    [ -z "$("$F" deal --game=holdem --players=99 2>/dev/null)" ]
}

@test "deal: --help and --version" {
    run "$F" deal --help
    [ "$status" -eq 0 ]
    [[ $output == "Usage: fairshuf deal"* ]]
    run "$F" deal --version
    [ "$status" -eq 0 ]
}

@test "deal: a million Dou Dizhu deals as TSV, each a whole deck (speed: bench/deal.sh)" {
    "$F" deal --game=doudizhu --count=1000000 --format=tsv --seed=speed |
        awk -F'\t' 'NF != 4 { bad++ } END { exit !(NR == 1000000 && bad == 0) }'
}

@test "deal: fails closed when the OS refuses randomness" {
    [ -n "${FS_FAILRANDOM:-}" ] && [ -e "$FS_FAILRANDOM" ]
    run env LD_PRELOAD="$FS_FAILRANDOM" "$F" deal
    [ "$status" -eq 1 ]
    [[ $output == "fairshuf: "* ]]
    [ -z "$(LD_PRELOAD="$FS_FAILRANDOM" "$F" deal 2>/dev/null)" ]
    # A seeded deal needs no OS randomness.
    LD_PRELOAD="$FS_FAILRANDOM" "$F" deal --seed=1 >/dev/null
}

@test "deal shoe mode: --hands deals one after another from one shoe; --show-rest shows the rest" {
    run "$F" deal --game=poker5 --hands=5,5,13 --show-rest --seed=s
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 4 ]
    [[ ${lines[3]} == "  Rest (29, top first):"* ]]
    # TSV: the hands then the rest: every card of the deck exactly once
    "$F" deal --game=poker5 --hands=5,5,13 --show-rest --seed=s --format=tsv > "$BATS_TEST_TMPDIR/s.tsv"
    [ "$(tr '\t' ' ' < "$BATS_TEST_TMPDIR/s.tsv" | tr ' ' '\n' | sort -u | wc -l)" -eq 52 ]
    # Dou Dizhu with two decks: the 54 cards not dealt are shown
    "$F" deal --game=doudizhu --decks=2 --hands=17,17,17,3 --show-rest --seed=s --format=tsv > "$BATS_TEST_TMPDIR/d.tsv"
    [ "$(cut -f5 "$BATS_TEST_TMPDIR/d.tsv" | wc -w)" -eq 54 ]
    [ "$(tr '\t' ' ' < "$BATS_TEST_TMPDIR/d.tsv" | wc -w)" -eq 108 ]
    # JSON Lines: one object per deal with "rest"
    "$F" deal --hands=5,5 --show-rest --format=jsonl --seed=b --count=3 |
        python3 -c 'import sys, json; r = [len(json.loads(l)["rest"]) for l in sys.stdin]; assert r == [44] * 3, r'
    # errors: usage
    run "$F" deal --game=poker5 --hands=30,30
    [ "$status" -eq 2 ] && [[ $output == *"not enough cards"* ]]
    run "$F" deal --hands=5,,5
    [ "$status" -eq 2 ] && [[ $output == "fairshuf: invalid hands"* ]]
}

@test "deal --hands: the game's layout is ignored (not checked); --players is a usage error there" {
    # shengji's layout needs 108 cards; shoe mode needs only the hands'
    run "$F" deal --game=shengji --decks=1 --hands=5,5 --seed=1 --format=tsv
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | awk -F'\t' '{print NF}')" -eq 2 ]
    run "$F" deal --game=doudizhu --players=3 --hands=5
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: --players does not apply to --hands (the hands are LIST, dealt from one shoe)" ]
    run "$F" deal --game=shengji --decks=1 --hands=30,30
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: shengji: not enough cards: the hands need 60, the shoe holds 54" ]
    run "$F" deal --game=bridge --decks=20 --hands=5
    [ "$status" -eq 2 ]
    [ "$output" = "fairshuf: bridge: 20 decks: at most 1024 cards per shoe" ]
    # the documented JSON keys, in order
    "$F" deal --game=poker5 --hands=2,3 --show-rest --format=jsonl --seed=1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.readline(), object_pairs_hook=lambda p: p)
assert [k for k, _ in d] == ["game", "decks", "hands", "rest"], d
assert [len(h) for h in d[2][1]] == [2, 3] and len(d[3][1]) == 47'
}

@test "deal --format=json: a generator failing in mid-run writes no half document (exit 1); jsonl keeps whole lines" {
    [ -n "${FS_FAILRANDOM:-}" ] && [ -e "$FS_FAILRANDOM" ]
    cd "$BATS_TEST_TMPDIR"
    # the first getrandom calls pass, a later re-seed is refused
    FS_FAILRANDOM_AFTER=3 LD_PRELOAD="$FS_FAILRANDOM" "$F" deal --count=100000 --format=json > out.json 2> err || st=$?
    [ "${st:-0}" -eq 1 ]
    grep -q "refused randomness" err
    [ ! -s out.json ]
    st=0
    FS_FAILRANDOM_AFTER=3 LD_PRELOAD="$FS_FAILRANDOM" "$F" deal --count=100000 --format=jsonl > out.jsonl 2> err || st=$?
    [ "$st" -eq 1 ]
    [ -s out.jsonl ]
    python3 -c '
import json, sys
for line in open(sys.argv[1]):
    json.loads(line)' out.jsonl
    # a run that succeeds is one valid document
    "$F" deal --count=3 --format=json --seed=1 | python3 -c 'import json, sys; assert len(json.load(sys.stdin)) == 3'
}

@test "deal --hands: the entropy warning counts the shoe's deals (the rest shown is ordered)" {
    run "$F" deal --rng=mt19937 --seed=1 --game=poker5 --hands=5
    [ "$status" -eq 0 ]
    [[ "$output" != *warning* ]]   # C(52,5) < 2^32: every hand reachable
    run "$F" deal --rng=mt19937 --seed=1 --game=poker5 --hands=5,5 --show-rest
    [[ "$output" == *"warning: generator mt19937 has 2^32 seeds but poker5 has 2^211.8 distinct deals"* ]]
    run "$F" deal --rng=mt19937 --seed=1 --game=poker5 --hands=5,5
    [[ "$output" == *"poker5 has 2^41.9 distinct deals"* ]]   # C(52,5) C(47,5)
}

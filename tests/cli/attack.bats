#!/usr/bin/env bats
# fairshuf attack: the 1999 ASF poker attack (post 003).

setup() {
    F="$FS_BIN"
    T=$(mktemp -d)
    cd "$T"
}

teardown() {
    rm -rf "$T"
}

# A secret seed from the OS: milliseconds since midnight.
secret() {
    echo $(( $("$F" rng --count=1 --format=u32) % 86400000 ))
}

# Field $2 (1-based, tab-separated) of the ASF deal for seed $1, 6 players.
asf_field() {
    "$F" deal --game=holdem --players=6 --rng=delphi --algorithm=asf-1999 \
        --seed="$1" --format=tsv 2>/dev/null | cut -f"$2"
}

@test "attack: recovers a random secret seed in a +-100 s window (timing: bench/deal.sh)" {
    s=$(secret)
    hole=$(asf_field "$s" 3 | tr ' ' ,)
    flop=$(asf_field "$s" 7 | tr ' ' ,)
    lo=$(( s > 100000 ? s - 100000 : 0 ))
    hi=$(( s + 100000 ))
    run "$F" attack --players=6 --seat=3 --hole="$hole" --flop="$flop" --window=$lo-$hi
    [ "$status" -eq 0 ]
    [[ $output == *"seed $s ("* ]]
    # The turn, the river and another player's hand are predicted.
    turn=$("$F" deal --game=holdem --players=6 --rng=delphi --algorithm=asf-1999 --seed="$s" 2>/dev/null | grep Turn)
    river=$("$F" deal --game=holdem --players=6 --rng=delphi --algorithm=asf-1999 --seed="$s" 2>/dev/null | grep River)
    p5=$("$F" deal --game=holdem --players=6 --rng=delphi --algorithm=asf-1999 --seed="$s" 2>/dev/null | grep 'Player 5')
    [[ $output == *"$turn"* ]]
    [[ $output == *"$river"* ]]
    [[ $output == *"$p5"* ]]
}

@test "attack: --known POS:CARD with 1-based shoe positions" {
    # Seat 1 of 6: shoe positions 1 and 7; flop at 14, 15, 16.
    run "$F" attack --known=1:2h,7:8d,14:7h,15:Qs,16:Qc --window=45290000-45300000
    [ "$status" -eq 0 ]
    [[ ${lines[1]} == "seed 45296789 (12:34:56.789 after midnight)" ]]
    [[ $output == *"Turn: 6♦"* ]]
    [[ $output == *"River: 8♠"* ]]
}

@test "attack: json output" {
    run "$F" attack --known=1:2h,7:8d,14:7h,15:Qs,16:Qc --window=45290000-45300000 --format=json
    [ "$status" -eq 0 ]
    printf '%s\n' "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["seeds"] == [45296789] and d["matches"] == 1
assert d["deals"][0]["turn"] == ["6d"] and d["deals"][0]["river"] == ["8s"]
assert d["default_generator_space_bits"] == 256'
}

@test "attack: against a chacha20 deal -> no seed found, and the size of the real space" {
    d=$("$F" deal --game=holdem --players=6 --seed=attack-me --algorithm=durstenfeld --format=tsv)
    hole=$(echo "$d" | cut -f1 | tr ' ' ,)
    flop=$(echo "$d" | cut -f7 | tr ' ' ,)
    run "$F" attack --seat=1 --hole="$hole" --flop="$flop" --window=0-2000000
    [ "$status" -eq 1 ]
    [[ $output == *"no seed found"* ]]
    [[ $output == *"2^256 keys"* ]]
}

@test "attack: bad input -> clear messages, usage errors exit 2" {
    run "$F" attack --known=1:Xx,2:As
    [ "$status" -eq 2 ]
    [[ $output == *"malformed card code 'Xx'"* ]]
    run "$F" attack --known=53:As
    [ "$status" -eq 2 ]
    [[ $output == *"invalid position"* ]]
    run "$F" attack --known=1:As,1:Kd --window=0-10
    [ "$status" -eq 2 ]
    run "$F" attack --known=1:As,2:As --window=0-10
    [ "$status" -eq 2 ]
    run "$F" attack --known=1:BJ --window=0-10
    [ "$status" -eq 2 ]
    run "$F" attack --known=1:As --window=10-5
    [ "$status" -eq 2 ]
    [[ $output == *"invalid window"* ]]
    run "$F" attack --seat=1 --hole=As,Kd
    [ "$status" -eq 2 ]
    run "$F" attack --seat=1 --hole=As --flop=2c,3c,4c
    [ "$status" -eq 2 ]
    [[ $output == *"needs 2 cards"* ]]
    run "$F" attack
    [ "$status" -eq 2 ]
    run "$F" attack --known=1:As --format=tsv
    [ "$status" -eq 2 ]
    run "$F" attack --help
    [ "$status" -eq 0 ]
    run "$F" attack --version
    [ "$status" -eq 0 ]
}

@test "attack: progress on a terminal (a pty), erased; never in a pipe" {
    command -v script
    a="--known=1:2h,7:8d,14:7h,15:Qs,16:Qc --window=40000000-46000000"
    script -qec "'$F' attack $a --progress > /dev/null" /dev/null > pty.txt
    grep -q "fairshuf: attack: .*% .* of 6.00M seeds, .* seeds/s, ETA" pty.txt
    # erased: the last thing on the line is blanks after a carriage return
    tail -c 3 pty.txt | od -c | grep -q '\\r'
    # in a pipe, without --progress: nothing on stderr, the same stdout
    "$F" attack $a 2> err.txt | grep -q "seed 45296789 ("
    [ ! -s err.txt ]
    # --no-progress on a terminal: only the result, no progress line
    script -qec "'$F' attack $a --no-progress" /dev/null > pty2.txt
    grep -q "seed 45296789 (" pty2.txt
    ! grep -q "seeds/s" pty2.txt
}

@test "attack: threads are -j (as bench); -t is lines' field separator only" {
    run "$F" attack -j 2 --known=1:2h,7:8d,14:7h,15:Qs,16:Qc --window=45290000-45300000
    [ "$status" -eq 0 ]
    [[ ${lines[1]} == "seed 45296789 (12:34:56.789 after midnight)" ]]
    run "$F" attack -t 2 --known=1:2h,7:8d,14:7h,15:Qs,16:Qc --window=45290000-45300000
    [ "$status" -eq 2 ]
    [[ ${lines[0]} == *"invalid option -- 't'" ]]
    "$F" attack --help | grep -q -- '-j, --threads=N'
    ! "$F" attack --help | grep -q -- '-t, '
}

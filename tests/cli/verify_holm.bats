#!/usr/bin/env bats
# verify_holm.bats -- verify's verdict applies Holm's correction over the
# family of tests that ran, whatever the data: with alpha between the
# smallest p-value p1 and m * p1 (m tests in the family) the run is fair
# (Holm does not reject) though p1 < alpha; with alpha above m * p1 it is
# biased.  A verdict taken on the raw p-values fails the first case.

setup() {
    FS="$FS_BIN"
    TMP="$BATS_TEST_TMPDIR"
}

# p1 and m of a JSON report on stdin: "p1 m"
smallest() {
    python3 -c 'import json,sys
r = json.load(sys.stdin)
ps = [t["p"] for t in r["runs"][0]["tests"] if t["applicable"]]
print(min(ps), len(ps))'
}

@test "verify: the verdict is Holm's, not the raw p-values'" {
    for seed in holm-1 holm-2 holm-3; do
        "$FS" perm 4 --count=2000 --seed="$seed" --algorithm=durstenfeld > "$TMP/p.txt"
        read -r p1 m < <("$FS" verify --input="$TMP/p.txt" --format=json | smallest)
        [ "$m" -ge 5 ]
        # alpha = p1 * sqrt(m): above p1, below m * p1
        alpha=$(python3 -c "import math; print(min(0.99, $p1 * math.sqrt($m)))")
        python3 -c "import sys; sys.exit(not ($p1 < $alpha < $m * $p1))" ||
            skip_seed=1
        [ -z "${skip_seed:-}" ] || { unset skip_seed; continue; }
        run "$FS" verify --input="$TMP/p.txt" --alpha="$alpha"
        [ "$status" -eq 0 ]
        [[ "$output" == *"fair"* ]]
        tested=$(( ${tested:-0} + 1 ))
        alpha=$(python3 -c "print($p1 * $m * 1.01)")
        if python3 -c "import sys; sys.exit(not $alpha < 1)"; then
            run "$FS" verify --input="$TMP/p.txt" --alpha="$alpha"
            [ "$status" -ne 0 ]
            [[ "$output" == *"BIASED"* ]]
        fi
    done
    [ "${tested:-0}" -ge 2 ]
}

@test "verify --format=json: p_holm is the step-down adjustment of the p-values" {
    "$FS" perm 5 --count=3000 --seed=holm-adj --algorithm=mod-bias > "$TMP/p.txt"
    "$FS" verify --input="$TMP/p.txt" --format=json > "$TMP/r.json" || true
    python3 - "$TMP/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
tests = [t for t in r["runs"][0]["tests"] if t["applicable"]]
m = len(tests)
assert m == r["family"], (m, r["family"])
order = sorted(range(m), key=lambda i: tests[i]["p"])
run = 0
for j, i in enumerate(order):
    run = max(run, min(1, (m - j) * tests[i]["p"]))
    got = tests[i]["p_holm"]
    assert abs(got - run) <= 1e-12 * max(run, 1e-300), (tests[i]["test"], got, run)
    assert tests[i]["rejected"] == (run <= r["alpha"]), tests[i]["test"]
PY
}

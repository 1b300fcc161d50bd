#!/usr/bin/env bats
# mutants_list.bats -- the MUTANTS files parse and every mutant's text is
# found exactly once (scripts/mutants.py --list): a refactor or a union
# merge (.gitattributes merges MUTANTS files by union, which can drop an
# "end" line) cannot silently lose a planted bug between `make mutants` runs.

setup() {
    R=$BATS_TEST_DIRNAME/../..
    T=$(mktemp -d)
    mkdir -p "$T/scripts" "$T/lib/x"
    cp "$R/scripts/mutants.py" "$T/scripts/"
    printf 'int a(void) { return 1; }\nint b(void) { return 2; }\n' > "$T/lib/x/a.c"
}

teardown() {
    rm -rf "$T"
}

@test "mutants: the tree's list is clean (no stale, ambiguous or unended mutant)" {
    run python3 "$R/scripts/mutants.py" --list
    [ "$status" -eq 0 ] || { echo "$output" | grep -v '^LISTED\|^EQUIV'; false; }
    [ "$(grep -c '^LISTED' <<< "$output")" -ge 250 ]
}

@test "mutants: a block without its end, and a stale one, fail the list (negative controls)" {
    printf '[one]\nfile: a.c\ndesc: d\nfrom:\nint a(void) { return 1; }\nto:\nint a(void) { return 0; }\n\n[two]\nfile: a.c\ndesc: d\nfrom:\nint b(void) { return 2; }\nto:\nint b(void) { return 0; }\nend\n' > "$T/lib/x/MUTANTS"
    run python3 "$T/scripts/mutants.py" --list
    [ "$status" -ne 0 ]
    [[ $output == *"[two] inside the to text of one: its 'end' is missing"* ]]
    printf '[one]\nfile: a.c\ndesc: d\nfrom:\nint a(void) { return 3; }\nto:\nint a(void) { return 0; }\nend\n' > "$T/lib/x/MUTANTS"
    run python3 "$T/scripts/mutants.py" --list
    [ "$status" -eq 1 ]
    [[ $output == *"STALE     one"* ]]
    printf '[one]\nfile: a.c\ndesc: d\nfrom:\nint a(void) { return 1; }\nto:\nint a(void) { return 0; }\nend\n' > "$T/lib/x/MUTANTS"
    run python3 "$T/scripts/mutants.py" --list
    [ "$status" -eq 0 ]
    [[ $output == *"LISTED    one"* ]]
}

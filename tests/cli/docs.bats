#!/usr/bin/env bats
# docs.bats -- the layout and the docs keep the shape docs/architecture.md
# states: README.md at most 300 lines and docs/performance.md at most 600;
# no non-test C file over 1,000 lines; no front end (programs/, service/,
# mpi/, python/) includes another's files, nor the library a front end's;
# docs and code comments are a manual, not a diary (no numbered or dated
# work sessions, no "earlier run", no dated headings).  Each rule is a
# function over a tree, so the negative controls run it on a planted copy.

setup() {
    R=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    T=$(mktemp -d)
}

teardown() {
    rm -rf "$T"
}

# Files of tree $1 (a checkout's top) that break each rule, one per line.
long_docs() {
    local f n
    for f in README.md:300 docs/performance.md:600; do
        n=$(wc -l < "$1/${f%:*}")
        [ "$n" -le "${f#*:}" ] || echo "${f%:*}: $n lines, more than ${f#*:}"
    done
}

long_c() {
    (cd "$1" && find lib common programs service mpi mpd python/fairshuf examples \
        -name '*.[ch]' -not -path '*/tests/*' -not -path '*/build/*' \
        -not -path '*/node_modules/*' -print0 2>/dev/null |
        xargs -0 -r wc -l | awk '$2 != "total" && $1 > 1000 { print $2 ": " $1 " lines" }')
}

cross_includes() {
    (cd "$1" && {
        # a front end reaching into another front end's folder
        grep -rnE '#[[:space:]]*include[[:space:]]*["<](\.\./)+(programs|service|mpi|mpd|python|web)/' \
            lib common programs service mpi mpd python/fairshuf 2>/dev/null || :
        # the library or common/ including a front end's or common's headers
        grep -rnE '#[[:space:]]*include[[:space:]]*["<](\.\./)*(common/)?(cli|json|out|pending|service|verify|bench|lines_run|lines_opts)\.h[">]' \
            lib 2>/dev/null || :
        # a front end's folder on everyone's include path
        grep -nE -- '-I[[:space:]]*(programs|service|mpd|python|web)\b' Makefile || :
        # a front end's program built from another front end's sources
        grep -nE '^(SVC|MPI|MPD)[A-Z_]*[[:space:]]*:?=.*programs/|^CLI[A-Z_]*[[:space:]]*:?=.*(service|mpi|mpd)/' \
            Makefile || :
    })
}



# Diary words: numbered or dated work sessions, runs told as a history,
# dated headings.  (Plain "session", as in "the same PostgreSQL session"
# or an MPI session directory, is fine, and so is "a file left by an
# earlier run" of a program.)
DIARY='[Ss]ession [0-9]|(previous|earlier) sessions?\b|[Ee]arlier (sessions?|figures?|measurements?)\b|\b[Aa] later run\b|\bthat day\b|performance\.md,? (\(|")?([Ss]ession|[Rr]un [0-9]|[Rr]ound (two|three))'
diary() {
    (cd "$1" && {
        grep -nE "$DIARY" README.md docs/*.md || :
        grep -nE '^#+ .*(\b20[0-9]{2}-[0-9]{2}-[0-9]{2}\b|^#+ ([Ss]ession|[Rr]ound) )' \
            README.md docs/*.md || :
        grep -rnE "$DIARY" --include='*.c' --include='*.h' --include='*.py' \
            --include='*.js' --include='*.mjs' --include='*.sh' --include='*.bats' \
            --include='*.bash' --include=Makefile --include=MUTANTS \
            lib common programs service mpi python/fairshuf python/tests web/src \
            tests bench scripts Makefile 2>/dev/null | grep -v '^tests/cli/docs\.bats:' || :
    })
}

# Packages scripts/setup.sh installs that README.md's "Dependencies"
# section does not name (in backquotes).
undocumented_packages() {
    local p deps
    deps=$(sed -n '/^## Dependencies/,/^## /p' "$1/README.md")
    for p in $(sed -n '/^[a-z]*=($/,/^)$/p' "$1/scripts/setup.sh" |
               sed -e 's/#.*//' -e '/=($/d' -e '/^)$/d' | tr -s ' ' '\n' | sort -u) \
             $(grep -o 'web+=([a-z0-9-]*)' "$1/scripts/setup.sh" | sed 's/web+=(\(.*\))/\1/'); do
        [[ $deps == *"\`$p\`"* ]] || echo "README.md, Dependencies: no \`$p\` (scripts/setup.sh installs it)"
    done
}

# Rule $1 finds nothing in this checkout (what it finds is printed).
holds() {
    run "$1" "$R"
    [ -z "$output" ] || { echo "$output"; false; }
}

@test "docs: README.md <= 300 lines, docs/performance.md <= 600" {
    holds long_docs
}

@test "docs: no non-test C file over 1,000 lines" {
    holds long_c
}

@test "docs: no front end includes another's files" {
    holds cross_includes
}

@test "docs: README's dependency tables name every package scripts/setup.sh installs" {
    holds undocumented_packages
}

@test "docs: no diary in docs or code comments" {
    holds diary
}

@test "docs: each rule finds what is planted (negative controls)" {
    mkdir -p "$T/docs" "$T/lib/x" "$T/service" "$T/programs"
    seq 301 > "$T/README.md"
    seq 10 > "$T/docs/performance.md"
    run long_docs "$T"
    [ "$output" = "README.md: 301 lines, more than 300" ]
    seq 1001 | sed 's/.*/int x&;/' > "$T/lib/x/big.c"
    run long_c "$T"
    [[ $output == *"lib/x/big.c: 1001 lines"* ]]
    printf '#include "../programs/cli.h"\n' > "$T/service/a.c"
    printf '#include "json.h"\n' > "$T/lib/x/b.c"
    printf 'CFLAGS += -Iprograms\nSVC_SRC := service/a.c programs/json.c\n' > "$T/Makefile"
    run cross_includes "$T"
    [[ $output == *"service/a.c"* && $output == *"lib/x/b.c"* && $output == *"-Iprograms"* ]]
    [[ $output == *"SVC_SRC := service/a.c programs/json.c"* ]]
    : > "$T/Makefile"
    printf '# Tried in session 9\n' > "$T/docs/a.md"
    printf '### Results (2026-11-28 13:07 UTC)\n' > "$T/docs/b.md"
    printf '/* faster (docs/performance.md, session 7) */\n' > "$T/programs/c.c"
    printf 'PostgreSQL keeps a session-level lock for the same session.\n' > "$T/docs/ok.md"
    run diary "$T"
    [[ $output == *"docs/a.md"* && $output == *"docs/b.md"* && $output == *"programs/c.c"* ]]
    [[ $output != *"docs/ok.md"* ]]
    mkdir -p "$T/scripts"
    sed 's/^    curl  /    curl planted-pkg  /' "$R/scripts/setup.sh" > "$T/scripts/setup.sh"
    grep -q planted-pkg "$T/scripts/setup.sh"
    cp "$R/README.md" "$T/README.md"
    run undocumented_packages "$T"
    [[ $output == *'README.md, Dependencies: no `planted-pkg` (scripts/setup.sh installs it)'* ]]
}

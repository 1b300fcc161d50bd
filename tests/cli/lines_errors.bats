#!/usr/bin/env bats
# lines_errors.bats -- table-driven: every error case of GNU shuf 9.1,
# run through /usr/bin/shuf and through fairshuf linked as `shuf`; exit
# status, stderr and stdout must be identical (C locale: plain quotes).

setup() {
    export LC_ALL=C
    SHUF="$(dirname "$FS_BIN")/shuf"
    T="$BATS_TEST_TMPDIR"
    cd "$T"
    printf 'a\nb\nc\n' > in3
    mkdir -p adir
    : > empty
    printf 'x' > unreadable
    chmod 000 unreadable
}

# compare ARGS...: same status, stdout and stderr as GNU (stdin: /dev/null)
compare() {
    local gs fs
    gs=0 fs=0
    (exec -a shuf /usr/bin/shuf "$@") </dev/null >g.out 2>g.err || gs=$?
    (exec -a shuf "$SHUF" "$@") </dev/null >f.out 2>f.err || fs=$?
    if [ "$gs" != "$fs" ] || ! cmp -s g.err f.err || ! cmp -s g.out f.out; then
        echo "args: $*"
        echo "GNU status $gs, fairshuf status $fs"
        diff g.err f.err || true
        diff g.out f.out || true
        return 1
    fi
}

@test "error table: same status and message as GNU shuf" {
    while IFS= read -r line; do
        [ -z "$line" ] && continue
        eval "set -- $line"
        compare "$@"
    done <<'TABLE'
-n -1 in3
-n abc in3
-n 2k in3
-n '' in3
--head-count=1x in3
-i 5-1
-i 1-
-i a-b
-i 1
-i -1-3
-i '1 -3'
-i '1-3 '
-i 1-0x3
-i 0x1-3
-i 1-18446744073709551616
-i 18446744073709551616-1
-i 0-18446744073709551615
-i 1-2 -i 3-4
-e -i 1-2
-e a -i 1-3
-i 1-3 a
-i 1-3 -n 0 a
in3 b
in3 b c
/nonexistent
adir
-o a -o b -e x
--random-source=a --random-source=b -e x
--bogus
-/
-r -e
-r -i 3-2 -n 1
--random-source=/dev/null -e a b
--random-source=/nonexistent -e a b
--random-source=/nonexistent /nonexistent2
-o /nonexistent/x -e a
-o /nonexistent/x /nonexistent2
--rand
--input-range
-n
TABLE
}

@test "names in messages are quoted as GNU quotes them (issue 10 §4)" {
    mkdir -p "q'dir" 'b\s'
    while IFS= read -r line; do
        [ -z "$line" ] && continue
        eval "set -- $line"
        compare "$@"
    done <<'TABLE'
'a b'
''
"a'b"
$'a\nb'
$'a\001b\377'
'x:y'
'#y'
'y#'
'{'
'~x'
"a'\$b"
--random-source=adir -e a b
--random-source="q'dir" -e a b
--random-source='b\s' -e a b
--random-source='no such' -e a b
--random-source='' -e a b
-o 'no dir/x' -e a
in3 "a'b"
-n "a'b" in3
-i "a'b"
-i "1-a'b"
TABLE
}

@test "error table: unreadable file (as an unprivileged user when root)" {
    if [ "$(id -u)" != 0 ]; then
        compare unreadable
        return
    fi
    # root reads mode-000 files: run both programs as nobody instead
    d=$(mktemp -d /tmp/fs-unreadable.XXXXXX)
    chmod 755 "$d"
    echo x >"$d/unreadable"
    chmod 000 "$d/unreadable"
    # nobody may not be able to reach the build folder: run a copy
    cp "$SHUF" "$d/fairshuf"
    chmod 755 "$d/fairshuf"
    cd "$d"
    gs=0 fs=0
    setpriv --reuid=65534 --regid=65534 --clear-groups bash -c 'exec -a shuf "$0" "$@"' \
        /usr/bin/shuf unreadable </dev/null >"$BATS_TEST_TMPDIR/g.out" 2>"$BATS_TEST_TMPDIR/g.err" || gs=$?
    setpriv --reuid=65534 --regid=65534 --clear-groups bash -c 'exec -a shuf "$0" "$@"' \
        "$d/fairshuf" unreadable </dev/null >"$BATS_TEST_TMPDIR/f.out" 2>"$BATS_TEST_TMPDIR/f.err" || fs=$?
    cd / && rm -rf "$d"
    echo "GNU $gs: $(cat "$BATS_TEST_TMPDIR/g.err") / fairshuf $fs: $(cat "$BATS_TEST_TMPDIR/f.err")"
    [ "$gs" -eq 1 ] && [ "$fs" -eq 1 ]
    cmp "$BATS_TEST_TMPDIR/g.err" "$BATS_TEST_TMPDIR/f.err"
    [ ! -s "$BATS_TEST_TMPDIR/f.out" ]
}

@test "successful edge cases print the same as GNU" {
    compare -n 0 /nonexistent
    compare -n0 --random-source=/nonexistent -e a
    compare -e
    compare -i 3-2
    compare -n 99999999999999999999999 -e a
    compare -n 1 -n 5 --random-source=in3 -e a
    compare -i ' 1-+3' --random-source=/dev/zero
    compare -n 2 -i 18446744073709551615-18446744073709551615
    compare -z -i 1-3 --random-source=/dev/zero
    compare -rn3 -i 5-5
    compare empty
}

# both REDIRECTIONS ARGS: same status and stderr as GNU under redirections
# (but GNU's second, reasonless "write error" line: fairshuf says it once,
# issue 30)
both() {
    local r=$1 gs=0 fs=0
    shift
    eval "(exec -a shuf /usr/bin/shuf \"\$@\") $r 2>g.err" || gs=$?
    grep -vx 'shuf: write error' g.err > g.tmp || true
    mv g.tmp g.err
    eval "(exec -a shuf \"\$SHUF\" \"\$@\") $r 2>f.err" || fs=$?
    [ "$gs" = "$fs" ] && cmp g.err f.err || {
        echo "$r $*: GNU $gs, fairshuf $fs"; cat g.err f.err; return 1; }
}

@test "write errors: /dev/full and a closed stdout, as GNU" {
    both '>/dev/full' -e a b
    both '>/dev/full' in3
    both '>/dev/full' -i 1-100000
    both '>&-' -e a b
    both '>&-' in3
    both '<&-'
    both '<&-' -n 2
    both '>/dev/full' --help
    both '>/dev/full' -n 0 -e a
    run "$SHUF" --version
    "$SHUF" --version >/dev/full 2>/dev/null && return 1
    true
}

@test "GNU abbreviations stay valid next to --header" {
    run "$SHUF" --hea=1 --random-source=/dev/zero in3
    [ "$output" = a ]
    run "$SHUF" --head=2 --random-source=/dev/zero in3
    [ "$output" = "$(printf 'a\nb')" ]
    run "$SHUF" --rep --head-c=2 -e z
    [ "$output" = "$(printf 'z\nz')" ]
}

@test "a closed pipe kills quietly with SIGPIPE" {
    seq 200000 > big
    run bash -c '"$0" big | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}"' "$SHUF"
    [ "$output" = 141 ]
    run bash -c '"$0" -r -e a 2>&1 | head -n 1' "$SHUF"
    [ "$output" = a ]
}

@test "fairshuf lines speaks as fairshuf, shuf as shuf" {
    run "$FS_BIN" lines -n x
    [ "$status" -eq 1 ]
    [ "$output" = "fairshuf: invalid line count: 'x'" ]
    run "$SHUF" -n x
    [ "$output" = "shuf: invalid line count: 'x'" ]
    run "$FS_BIN" lines --bogus
    [ "$status" -eq 1 ]
    [[ "$output" == *"Try 'fairshuf lines --help'"* ]]
}

@test "--help lists every option it accepts; --version works" {
    run "$SHUF" --help
    [ "$status" -eq 0 ]
    for o in --echo --input-range --head-count --output --random-source \
             --repeat --zero-terminated --seed --memory --temporary-directory \
             --threads --progress --no-progress --header --help --version; do
        [[ "$output" == *"$o"* ]] || { echo "missing $o"; return 1; }
    done
    run "$SHUF" --version
    [ "$status" -eq 0 ]
}

@test "extension errors" {
    run "$SHUF" --seed= -e a
    [ "$status" -eq 1 ]
    run "$SHUF" --seed=1 --random-source=in3 -e a
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot combine --seed and --random-source"* ]]
    run "$SHUF" --memory=12Q in3
    [ "$status" -eq 1 ]
    [[ "$output" == "shuf: invalid memory size: '12Q'" ]]
    run "$SHUF" --threads=0 in3
    [ "$status" -eq 1 ]
    run "$SHUF" --header=x in3
    [ "$status" -eq 1 ]
    # numbers have no header line: refused, in GNU's style (issue 15 §2)
    run "$SHUF" --header=1 -i 1-5
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "shuf: cannot combine --header and -i options" ]
    [ "${lines[1]}" = "Try 'shuf --help' for more information." ]
    run "$SHUF" -i 1-5 --header=0 --seed=s
    [ "$status" -eq 1 ]
}

@test "--header=H -n 0 writes the header only (issue 15 §2)" {
    printf 'h1\nh2\na\nb\n' > hd
    for extra in "--seed=s" "--random-source=/dev/zero" "-r" "-r --random-source=/dev/zero"; do
        run "$SHUF" --header=2 -n 0 $extra hd
        [ "$status" -eq 0 ]
        [ "$output" = "$(printf 'h1\nh2')" ] || { echo "$extra: $output"; return 1; }
    done
    run "$SHUF" --header=1 -n 0 -e h x y
    [ "$output" = h ]
    # the header of a pipe, and a last line without delimiter
    [ "$(printf 'h\nx\ny\n' | "$SHUF" --header=1 -n 0)" = h ]
    [ "$(printf 'h' | "$SHUF" --header=3 -n 0 | od -An -c | tr -d ' ')" = 'h\n' ]
    # no header: GNU's -n 0, which reads nothing
    run "$SHUF" -n 0 /nonexistent
    [ "$status" -eq 0 ] && [ -z "$output" ]
}

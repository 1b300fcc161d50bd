#!/usr/bin/env bats
# lines_data.bats -- fairshuf lines for data work (issue 29): a default
# memory budget that fits the process (ulimit -v, a cgroup memory limit),
# compressed input and output, CSV records, fields, split, weights, groups.

setup() {
    export LC_ALL=C
    cd "$BATS_TEST_TMPDIR"
}

# ~30 MB of 80-byte lines, made without randomness.
big_file() {
    seq 1 375000 | awk '{printf "%07d-abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz012\n", $1*7919 % 1000003}' > big
}

@test "default budget: under ulimit -v the run spills and equals the unlimited output" {
    skip_if_asan
    big_file
    want=$("$FS_BIN" lines --seed=u big | md5sum)
    # 30 MB of address space: less than the input; the old default (half
    # the machine's free memory) died with "memory exhausted" here.
    for v in 30000 40000; do
        got=$(bash -c "ulimit -v $v; \"$FS_BIN\" lines --seed=u big" | md5sum)
        [ "$got" = "$want" ] || { echo "ulimit -v $v: file differs"; return 1; }
        got=$(bash -c "ulimit -v $v; \"$FS_BIN\" lines --seed=u < big" | md5sum)
        [ "$got" = "$want" ] || { echo "ulimit -v $v: stdin differs"; return 1; }
        got=$(cat big | bash -c "ulimit -v $v; \"$FS_BIN\" lines --seed=u" | md5sum)
        [ "$got" = "$want" ] || { echo "ulimit -v $v: pipe differs"; return 1; }
    done
}

@test "an explicit budget the process cannot have: the error names --memory" {
    skip_if_asan
    big_file
    run bash -c "ulimit -v 36000; cat big | \"$FS_BIN\" lines --seed=u --memory=1G > out"
    if [ "$status" -ne 0 ]; then
        [ "$status" -eq 1 ]
        [[ "$output" == "fairshuf: memory exhausted"*"--memory"* ]]
    else # the fallback to disk got through: then it is the same output
        [ "$(md5sum < out)" = "$("$FS_BIN" lines --seed=u big | md5sum)" ]
    fi
}

# Makes a child of this process's memory cgroup (v2, or v1's memory
# controller) with a limit of $1; prints its folder, or fails.
make_cgroup() {
    local rel dir
    rel=$(awk -F: '$1 == "0" && $2 == "" {print $3}' /proc/self/cgroup)
    if [ -n "$rel" ] && [ -f /sys/fs/cgroup/cgroup.controllers ]; then
        dir=/sys/fs/cgroup${rel%/}/fairshuf-test-$$
        if mkdir "$dir" 2>/dev/null; then
            echo "$1" > "$dir/memory.max" 2>/dev/null &&
                { echo 0 > "$dir/memory.swap.max"; } 2>/dev/null
            [ "$(cat "$dir/memory.max" 2>/dev/null)" != max ] &&
                [ -f "$dir/memory.max" ] && { echo "$dir"; return 0; }
            rmdir "$dir"
        fi
    fi
    rel=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
    [ -n "$rel" ] && [ -d /sys/fs/cgroup/memory ] || return 1
    dir=/sys/fs/cgroup/memory${rel%/}/fairshuf-test-$$
    mkdir "$dir" 2>/dev/null || return 1
    echo "$1" > "$dir/memory.limit_in_bytes" 2>/dev/null || { rmdir "$dir"; return 1; }
    echo "$dir"
}

# AddressSanitizer reserves terabytes of address space and doubles memory.
skip_if_asan() {
    if grep -q __asan_init "$FS_BIN" 2>/dev/null; then
        skip "AddressSanitizer build: a memory limit cannot apply to it"
    fi
}

@test "default budget: under a cgroup memory limit the run equals the unlimited output" {
    skip_if_asan
    big_file
    want=$("$FS_BIN" lines --seed=c big | md5sum)
    dir=$(make_cgroup 24M) || skip "the kernel refuses a child memory cgroup here (not root, or no delegation)"
    # the run is in the cgroup: 24 MiB for a 30 MB input (the old default
    # budget read it all and was killed by the OOM killer)
    got=$(bash -c "echo \$\$ > '$dir/cgroup.procs' && exec \"$FS_BIN\" lines --seed=c big" | md5sum)
    got2=$(cat big | bash -c "echo \$\$ > '$dir/cgroup.procs' && exec \"$FS_BIN\" lines --seed=c" | md5sum)
    rmdir "$dir" || true
    [ "$got" = "$want" ]
    [ "$got2" = "$want" ]
}

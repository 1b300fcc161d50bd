#!/usr/bin/env bats
# rowkey.bats -- the row key of docs/rowkey.md in other languages: the Java
# (javax.crypto ChaCha20, a Spark UDF's building block) and JavaScript
# (node:crypto ChaCha20) reference implementations in examples/rowkey/,
# written from the page, reproduce its vectors and 10,000 random rows
# computed by the C library (fairshuf.lines_keys); the Java order of 0..N-1
# is `fairshuf lines`'; a one-bit change in the seed derivation fails each.

setup() {
    export LC_ALL=C
    ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    cd "$BATS_TEST_TMPDIR"
}

need_jdk() {
    if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
        skip "no JDK (javac, java): scripts/setup.sh installs default-jdk-headless"
    fi
}

# the C library's keys (through the Python package, which compiles it)
c_keys() { # python code printing "seed TAB i TAB level TAB key" lines
    PYTHONPATH="$ROOT/python" python3 -c "import fairshuf, numpy as np
$1"
}

# the vectors table of docs/rowkey.md as "seed TAB i TAB level TAB key"
vectors() {
    sed -nE 's/^\| `([^`]+)` \| ([0-9]+) \| ([0-9]+) \| ([0-9]+) \|.*/\1\t\2\t\3\t\4/p' \
        "$ROOT/docs/rowkey.md"
}

# 10,000 rows: small numbers, both sides of 2^35 boundaries, any 64-bit
# number; levels 0, 1, 2 and any 32-bit level; three seeds (one a hex key)
random_rows() {
    c_keys '
rng = np.random.default_rng(45)
seeds = ["spark", "0f" * 32, "épreuve"]
for n in range(10000):
    s = seeds[n % 3]
    kind = n % 4
    if kind == 0: i = int(rng.integers(0, 10**6))
    elif kind == 1: i = int(rng.integers(1, 2**29)) * 2**35 + int(rng.integers(-9, 9))
    else: i = int(rng.integers(0, 2**64, dtype=np.uint64))
    lv = int(rng.choice([0, 0, 0, 1, 2, int(rng.integers(0, 2**32))]))
    k = fairshuf.lines_keys(s, i, 1, level=lv)[0]
    print("%s\t%d\t%d\t%d" % (s, i, lv, k))'
}

@test "rowkey: the page's vectors are the C library's keys" {
    vectors > vec.tsv
    [ "$(wc -l < vec.tsv)" -ge 15 ]
    c_keys '
import sys
for line in open("vec.tsv"):
    s, i, lv, k = line.rstrip("\n").split("\t")
    got = int(fairshuf.lines_keys(s, int(i), 1, level=int(lv))[0])
    assert got == int(k), (line, got)
K = fairshuf.rowkeys.seed_key("abc")
print(fairshuf.rowkeys.groups_seed_key(K).hex())' > kg
    grep -q "Kg = \`$(cat kg)\`" "$ROOT/docs/rowkey.md"
}

@test "rowkey: Java reproduces the vectors, 10,000 random rows and the order of fairshuf lines" {
    need_jdk
    mkdir j
    cp "$ROOT/examples/rowkey/RowKey.java" j/
    javac -d j j/RowKey.java
    vectors | java -cp j RowKey --check
    random_rows > rows.tsv
    run java -cp j RowKey --check < rows.tsv
    [ "$status" -eq 0 ]
    [ "$output" = "10000 rows, 0 differ" ]
    [ "$(java -cp j RowKey --groups-key abc)" = \
      "de971695bb5f1e66f32cc456ed3b6a48c708dbfeec881a9500466db683fdd9cf" ]
    # orderBy(sortKey(key(i, 0))), ties by compare(): fairshuf lines' order
    java -cp j RowKey --order spark 5000 > java.order
    seq 0 4999 | "$FS_BIN" lines --seed=spark | cmp - java.order
}

@test "rowkey: JavaScript reproduces the vectors and 10,000 random rows" {
    command -v node >/dev/null || skip "no node: scripts/setup.sh installs nodejs"
    vectors | node "$ROOT/examples/rowkey/rowkey.mjs" --check
    random_rows > rows.tsv
    run node "$ROOT/examples/rowkey/rowkey.mjs" --check < rows.tsv
    [ "$status" -eq 0 ]
    [ "$output" = "10000 rows, 0 differ" ]
    [ "$(node "$ROOT/examples/rowkey/rowkey.mjs" --groups-key abc)" = \
      "de971695bb5f1e66f32cc456ed3b6a48c708dbfeec881a9500466db683fdd9cf" ]
}

@test "rowkey: a one-bit change in the seed derivation fails both checks" {
    command -v node >/dev/null || skip "no node: scripts/setup.sh installs nodejs"
    vectors > vec.tsv
    n=$(wc -l < vec.tsv)
    # JavaScript: K[0] ^= 1 after the derivation
    sed 's|^  return k; // seed derivation ends here|  k[0] ^= 1; return k;|' \
        "$ROOT/examples/rowkey/rowkey.mjs" > bad.mjs
    ! cmp -s bad.mjs "$ROOT/examples/rowkey/rowkey.mjs"
    run node bad.mjs --check < vec.tsv
    [ "$status" -eq 1 ]
    [ "${lines[-1]}" = "$n rows, $n differ" ]
    # Java, the same
    if command -v javac >/dev/null; then
        mkdir j
        sed 's|^        return k; // seed derivation ends here|        k[0] ^= 1; return k;|' \
            "$ROOT/examples/rowkey/RowKey.java" > j/RowKey.java
        ! cmp -s j/RowKey.java "$ROOT/examples/rowkey/RowKey.java"
        javac -d j j/RowKey.java
        run java -cp j RowKey --check < vec.tsv
        [ "$status" -eq 1 ]
        [ "${lines[-1]}" = "$n rows, $n differ" ]
    fi
}

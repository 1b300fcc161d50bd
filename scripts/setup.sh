#!/usr/bin/env bash
# setup.sh -- make sure the Debian packages fairshuf needs are installed.
#   scripts/setup.sh build   what `make` and `make demo` need
#   scripts/setup.sh         (or `test`) that plus what `make check` needs
#   scripts/setup.sh openssl the same as build (kept for old instructions)
# As root, installs what is missing with apt-get; otherwise names the
# missing packages and fails.
set -euo pipefail

# What each is for (README "Dependencies" says the same):
build=(
    build-essential   # C compiler, make, ar
    pkgconf           # finds libsodium's and libcrypto's flags
    libsodium-dev     # SHA-256, HMAC, SipHash; ChaCha20 where OpenSSL is missing
    libssl-dev        # OpenSSL's libcrypto: the ChaCha20 keystream (default build, faster)
    zlib1g-dev        # gzip input and output of `fairshuf lines` (lib/lines/codec.c)
    libzstd-dev       # zstd input and output of `fairshuf lines` (lib/lines/codec.c)
    libmicrohttpd-dev # fairshuf serve: the HTTP server
    libjansson-dev    # fairshuf serve: parses request bodies (strict JSON)
    libsqlite3-dev    # fairshuf serve: tables, periods, logs (SQLite, WAL)
    libmpdclient-dev  # fairshuf mpd (fairshuf-mpd; the rest builds without)
    libpq-dev         # fairshuf serve --db=postgresql://: several instances on one database
)
test=(
    g++               # the std::shuffle benchmark baseline (make bench)
    libcmocka-dev     # unit test framework
    libgsl-dev        # independent reference in tests, bench baseline
    time              # GNU time: page faults and peak RSS in bench/ scripts (counts.sh)
    bats              # CLI tests
    zstd gzip         # independent (de)compressors in the lines_data tests
    dieharder         # generator battery (quick subset in the suite)
    clang             # second compiler for -Werror checks
    cppcheck          # static analysis (make lint; CI runs it)
    python3           # test helpers (stream spec, XML check)
    python3-cryptography  # the provably-fair reference checker (tests)
    cmake             # tests that the installed package is consumable
    man-db            # `man` renders the installed man pages (install test)
    python3-dev python3-setuptools  # build the Python package (python/)
    python3-numpy     # the Python package's arrays
    python3-pytest    # the Python package's tests
    python3-pip       # tests that `pip install ./python` works offline
    python3-torch     # tests the PyTorch sampler with a real DataLoader
    python3-dask python3-distributed python3-pandas  # fairshuf.dask and its tests (a real LocalCluster)
    default-jdk-headless  # the Java row key's tests (examples/rowkey: a Spark UDF's building block)
    python3-wheel python3-venv  # the sdist's offline install into a fresh venv (make wheel)
    openmpi-bin libopenmpi-dev  # fairshuf-mpi and its tests (the rest builds without)
    chromium          # the browser verifier page's tests (driven by playwright-core)
    curl              # fairshuf serve's tests (HTTP calls)
    postgresql        # fairshuf serve's PostgreSQL tests: a throwaway cluster (tests/cli/pg.bash)
    nodejs            # fairshuf serve's Node client example (built-in fetch)
    mpd mpc           # fairshuf mpd's tests: a real MPD, and mpc to drive it
    mpv               # the mpv script's tests (contrib/mpv/fairshuf.lua)
    sox flac          # the MPD and mpv tests' generated songs (sox, metaflac tags)
)
# Node.js and npm build the browser verifier page (make web: npm ci, esbuild)
# and run its tests; any node >= 18 with npm will do, so Debian's are added
# only when no node/npm is on PATH (a NodeSource nodejs bundles its own npm).
web=()
command -v node >/dev/null 2>&1 || web+=(nodejs)
command -v npm >/dev/null 2>&1 || web+=(npm)

case "${1:-test}" in
build) packages=("${build[@]}") ;;
test) packages=("${build[@]}" "${test[@]}" "${web[@]}") ;;
openssl) packages=("${build[@]}") ;;
*) echo "usage: $0 [build|test|openssl]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

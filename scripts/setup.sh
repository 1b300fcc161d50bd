#!/usr/bin/env bash
# setup.sh -- make sure the Debian packages fairshuf needs are installed.
#   scripts/setup.sh build   what `make` and `make demo` need
#   scripts/setup.sh         (or `test`) that plus what `make check` needs
#   scripts/setup.sh openssl what `make CHACHA=openssl` adds (libssl-dev)
# As root, installs what is missing with apt-get; otherwise names the
# missing packages and fails.
set -euo pipefail

# What each is for (README "Dependencies" says the same):
build=(
    build-essential   # C compiler, make, ar
    pkgconf           # finds libsodium's flags
    libsodium-dev     # ChaCha20, SHA-256, HMAC (the library)
)
test=(
    g++               # the std::shuffle benchmark baseline (make bench)
    libcmocka-dev     # unit test framework
    libgsl-dev        # independent reference in tests, bench baseline
    bats              # CLI tests
    dieharder         # generator battery (quick subset in the suite)
    clang             # second compiler for -Werror checks
    python3           # test helpers (stream spec, XML check)
    python3-cryptography  # the provably-fair reference checker (tests)
    cmake             # tests that the installed package is consumable
    man-db            # `man` renders the installed man pages (install test)
    python3-dev python3-setuptools  # build the Python package (python/)
    python3-numpy     # the Python package's arrays
    python3-pytest    # the Python package's tests
    python3-pip       # tests that `pip install ./python` works offline
    python3-torch     # tests the PyTorch sampler with a real DataLoader
    python3-wheel python3-venv  # the sdist's offline install into a fresh venv (make wheel)
    openmpi-bin libopenmpi-dev  # fairshuf-mpi and its tests (the rest builds without)
)

# Only for `make CHACHA=openssl` / `make check-openssl`:
openssl=(
    libssl-dev        # OpenSSL's libcrypto: the same ChaCha20, faster with AVX-512
)

case "${1:-test}" in
build) packages=("${build[@]}") ;;
test) packages=("${build[@]}" "${test[@]}") ;;
openssl) packages=("${openssl[@]}") ;;
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

#!/usr/bin/env bash
# setup.sh -- make sure the Debian packages fairshuf builds and tests with
# are installed.  As root, installs what is missing with apt-get; otherwise
# names the missing packages and fails.
set -euo pipefail

# What each is for (README "Dependencies" says the same):
#   build-essential g++ pkgconf   compilers, make; C++ only for bench baselines
#   libsodium-dev                 ChaCha20, SHA-256, HMAC (the library)
#   libcmocka-dev                 unit test framework
#   libgsl-dev                    independent reference in tests, bench baseline
#   bats                          CLI tests
#   dieharder                     generator battery (quick subset in the suite)
#   clang                         second compiler for -Werror checks
#   python3                       test helpers (stream spec, XML check)
#   cmake                         tests that the installed package is consumable
#   python3-cryptography          the provably-fair reference checker (tests)
#   openmpi-bin libopenmpi-dev    fairshuf-mpi (mpi/) and its tests (tests/cli/mpi.bats)
packages=(build-essential g++ pkgconf libsodium-dev libcmocka-dev libgsl-dev
          bats dieharder clang python3 python3-cryptography cmake
          openmpi-bin libopenmpi-dev) # test need: mpicc/mpirun for mpi/ and mpi.bats

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

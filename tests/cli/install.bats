#!/usr/bin/env bats
# `make install` gives a usable library: header, static and shared
# libraries, pkg-config file, CMake package, man pages, the CLI; the
# examples build against it with Make + pkg-config and with CMake.

setup_file() {
    ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    export ROOT PREFIX="$BATS_FILE_TMPDIR/prefix"
    make -s -C "$ROOT" install BUILD="${BUILD:-build}" PREFIX="$PREFIX" >/dev/null
    # binaries built with sanitizers need them at link time too
    export EXTRA=""
    case "${BUILD:-build}" in
    *tsan*) EXTRA="-fsanitize=thread" ;;
    *san*) EXTRA="-fsanitize=address,undefined" ;;
    esac
}

@test "install lays out header, libraries, pc, cmake, man pages, CLI" {
    for f in include/fairshuf.h lib/libfairshuf.a lib/libfairshuf.so lib/libfairshuf.so.0 \
             lib/pkgconfig/fairshuf.pc lib/cmake/fairshuf/fairshuf-config.cmake \
             share/man/man1/fairshuf.1 bin/fairshuf; do
        [ -e "$PREFIX/$f" ] || { echo "missing $f"; return 1; }
    done
    [ ! -e "$PREFIX/bin/shuf" ]   # never shadows coreutils by default
    man -l "$PREFIX/share/man/man1/fairshuf.1" >/dev/null
}

@test "examples build with pkg-config and run" {
    export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
    cd "$BATS_TEST_TMPDIR"
    cc $EXTRA -std=c11 -Wall -Wextra -Werror "$ROOT/examples/deal54.c" \
        $(pkg-config --cflags --libs fairshuf) -Wl,-rpath,"$PREFIX/lib" -o deal54
    run ./deal54 replay-me
    [ "$status" -eq 0 ]
    [[ "$output" == *"landlord:"* ]] && [[ "$output" == *"deck still in order: yes"* ]]
    [ "$(./deal54 replay-me)" = "$output" ]
    # static linking works too, with what fairshuf.pc says it needs
    # (libsodium, and libcrypto in a CHACHA=openssl build)
    cc $EXTRA -std=c11 "$ROOT/examples/shuffle_array.c" -I"$PREFIX/include" \
        "$PREFIX/lib/libfairshuf.a" $(pkg-config --static --libs-only-other --libs-only-l fairshuf | sed 's/-lfairshuf//') -o sa
    [ "$(./sa | wc -w)" -eq 10 ]
}

@test "examples build with CMake find_package(fairshuf)" {
    cd "$BATS_TEST_TMPDIR"
    CFLAGS="$EXTRA" LDFLAGS="$EXTRA -Wl,-rpath,$PREFIX/lib" \
        cmake -S "$ROOT/examples" -B cm -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null
    cmake --build cm >/dev/null
    [ "$(./cm/shuffle_array | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 " ]
}

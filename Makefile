# fairshuf -- build, test, install.  `make help` lists the targets.
#
# Variables: CC, CXX, CFLAGS, BUILD (output folder), SANITIZE=1 (ASan+UBSan)
# or SANITIZE=thread (ThreadSanitizer), CHACHA=openssl|sodium (where the
# ChaCha20 keystream comes from: OpenSSL's libcrypto by default when
# pkg-config finds libcrypto 3.0 or later, else libsodium -- same bytes,
# OpenSSL's is faster; lib/rng/keystream.h),
# PREFIX, DESTDIR.  Sources are found by folder, so adding a file needs no
# edit here: lib/**.c -> libfairshuf, programs/*.c -> fairshuf, service/*.c -> fairshuf-serve,
# common/*.c (option parsing, JSON writing, pending outputs: what the CLI, the
# service and fairshuf-mpi share) -> each of them,
# mpd/*.c -> fairshuf-mpd (where libmpdclient is found),
# tests/unit/test_*.c -> one cmocka binary each, tests/cli/*.bats -> bats.

CC       ?= cc
CXX      ?= c++
PREFIX   ?= /usr/local
BUILD    ?= build
PKGS     := libsodium zlib libzstd
CHACHA   ?= $(shell pkg-config --atleast-version=3.0 libcrypto 2>/dev/null && echo openssl || echo sodium)
ifeq ($(CHACHA),openssl)
PKGS     += libcrypto
CFLAGS_CHACHA := -DFS_CHACHA_OPENSSL
else ifneq ($(CHACHA),sodium)
$(error CHACHA must be sodium or openssl)
endif
SONAME   := libfairshuf.so.0
VERSION  := $(shell sed -n 's/^#define FS_VERSION_STRING "\(.*\)"/\1/p' include/fairshuf.h)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wvla
OPT      ?= -O2 -g
ifeq ($(SANITIZE),1)
OPT      := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
endif
ifeq ($(SANITIZE),thread)
OPT      := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
endif
CFLAGS   ?=
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC $(WARN) $(OPT) -Iinclude -Ilib -Icommon \
              $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(CFLAGS_CHACHA) $(CFLAGS)
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lsodium -lz -lzstd) -lpthread -lm
SANFLAGS := $(if $(filter thread,$(SANITIZE)),-fsanitize=thread,-fsanitize=address,undefined)
SANLD    := $(if $(filter 1 thread,$(SANITIZE)),$(SANFLAGS))

LIB_SRC  := $(sort $(shell find lib -name '*.c'))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# fairshuf serve is its own program, fairshuf-serve (service/, on
# libmicrohttpd, jansson and SQLite), which `fairshuf
# serve` runs from beside itself (programs/serve_exec.c): the other
# subcommands do not load those libraries (nor GnuTLS, which libmicrohttpd
# brings and which draws from getrandom as it loads).
COMMON_SRC := $(sort $(wildcard common/*.c))
CLI_SRC  := $(sort $(wildcard programs/*.c)) $(COMMON_SRC)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
SVC_SRC  := $(sort $(wildcard service/*.c)) common/cli.c common/json.c
SVC_OBJ  := $(SVC_SRC:%.c=$(BUILD)/obj/%.o)
SVC_PKGS := libmicrohttpd jansson sqlite3 libpq
SVC_LIBS := $(shell pkg-config --libs $(SVC_PKGS) 2>/dev/null || echo -lmicrohttpd -ljansson -lsqlite3 -lpq)
# libpq's header folder (/usr/include/postgresql), for service/ only
SVC_CFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TEST_SUP := $(sort $(wildcard tests/unit/support/*.c))
TEST_CFLAGS := $(shell pkg-config --cflags cmocka gsl 2>/dev/null)
TEST_LIBS := $(shell pkg-config --libs cmocka gsl 2>/dev/null || echo -lcmocka -lgsl -lgslcblas)
HEADERS  := $(shell find include lib common programs service -name '*.h')
# Debian's interpreter, where python3-numpy and python3-torch install (not a
# pyenv or venv python3 that may come first on PATH).
PYTHON   ?= /usr/bin/python3

PY_EXT   := python/fairshuf/_core.stamp

.PHONY: web web-screenshots web-mutants python all setup setup-build demo check check-sanitize check-clang check-tsan check-long check-pg-crash check-openssl check-sodium check-keyed sdist wheel test test-build install \
        install-shuf-link uninstall bench battery clean help lint mutants

all: $(BUILD)/libfairshuf.a $(BUILD)/libfairshuf.so $(BUILD)/fairshuf $(BUILD)/fairshuf-serve

help:
	@echo "make            build $(BUILD)/libfairshuf.{a,so} and $(BUILD)/fairshuf"
	@echo "make demo       set up (build needs only), build, show fairshuf at work"
	@echo "make check      set up (build and test needs), build, run the suite"
	@echo "                FS_TEST_FILTER=word, FS_TEST_TIMEOUT=seconds (tests/run.sh)"
	@echo "make check-sanitize  the suite under AddressSanitizer + UBSan"
	@echo "make check-clang     -Werror build and suite with clang"
	@echo "make check-long      the suite with its long test matrices (opt-in)"
	@echo "make check-tsan      the suite under ThreadSanitizer (long; opt-in)"
	@echo "make check-pg-crash  serve on PostgreSQL: kill -9 under load (opt-in)"
	@echo "make check-openssl   the suite on a CHACHA=openssl build (opt-in)"
	@echo "make check-sodium    vectors and goldens on the CHACHA=sodium fallback build"
	@echo "make check-keyed     keyed permutation: exhaustive bijection to 2^22 (opt-in)"
	@echo "make python     build the Python package in place (python/)"
	@echo "make web        the browser verifier page $(BUILD)/web/verify.html"
	@echo "                (npm ci, esbuild)"
	@echo "make web-screenshots  docs/verify-desktop.png and docs/verify-phone.png"
	@echo "make sdist      dist/fairshuf-V.tar.gz (C sources included)"
	@echo "make wheel      its wheel"
	@echo "make bench      benchmarks against std::shuffle, GSL and GNU shuf"
	@echo "make battery    dieharder over every generator (long; opt-in)"
	@echo "make mutants    mutation score of the suite (long; opt-in; MUTANTS=id,id)"
	@echo "make lint       cppcheck over the C sources (in CI)"
	@echo "make install PREFIX=/usr/local DESTDIR=   header, libs, pc, man, CLI"

# setup-build: what the build and the demo need; setup: that plus the tests'.
setup-build:
	@scripts/setup.sh build

setup:
	@scripts/setup.sh test

# A build folder switched between CHACHA=openssl and sodium rebuilds the two
# files that depend on it.
$(BUILD)/obj/lib/rng/keystream.o $(BUILD)/obj/lib/rng/chacha20.o: $(BUILD)/chacha-$(CHACHA)
$(BUILD)/chacha-$(CHACHA):
	@mkdir -p $(BUILD) && rm -f $(BUILD)/chacha-* && touch $@

# The library exports only what the headers mark FS_API.
$(LIB_OBJ): ALL_CFLAGS += -fvisibility=hidden
$(SVC_OBJ): ALL_CFLAGS += $(SVC_CFLAGS)

$(BUILD)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libfairshuf.a: $(LIB_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@ar rcs $@ $^

$(BUILD)/libfairshuf.so: $(LIB_OBJ)
	@echo "  LD      $@"
	@$(CC) -shared -Wl,-soname,$(SONAME) $(SANLD) -o $@.$(VERSION) $^ $(LDLIBS)
	@ln -sf libfairshuf.so.$(VERSION) $(BUILD)/$(SONAME)
	@ln -sf libfairshuf.so.$(VERSION) $@

$(BUILD)/fairshuf: $(CLI_OBJ) $(BUILD)/libfairshuf.a
	@echo "  LD      $@"
	@$(CC) $(SANLD) -o $@ $(CLI_OBJ) $(BUILD)/libfairshuf.a $(LDLIBS)
	@ln -sf fairshuf $(BUILD)/shuf

$(BUILD)/fairshuf-serve: $(SVC_OBJ) $(BUILD)/libfairshuf.a
	@echo "  LD      $@"
	@$(CC) $(SANLD) -o $@ $(SVC_OBJ) $(BUILD)/libfairshuf.a $(SVC_LIBS) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(TEST_SUP) $(BUILD)/libfairshuf.a $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	@$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -Itests/unit $(SANLD) -o $@ $< $(TEST_SUP) \
	    $(BUILD)/libfairshuf.a $(TEST_LIBS) $(LDLIBS)

# test_serve_map compiles the service's table map in (#include).
$(BUILD)/tests/test_serve_map: service/table_map.c

$(BUILD)/tests/failrandom.so: tests/support/failrandom.c
	@mkdir -p $(dir $@)
	@$(CC) -shared -fPIC -O2 -o $@ $< -ldl

# The Python package, built in place (python/fairshuf/_core*.so): it compiles
# the library's sources itself, as `pip install ./python` does.
python: $(PY_EXT)
$(PY_EXT): python/setup.py python/fairshuf/_core.c $(LIB_SRC) $(HEADERS)
	@echo "  PYTHON  python/fairshuf/_core"
	@cd python && $(PYTHON) setup.py -q build_ext --inplace >/dev/null
	@touch $@

# The browser verifier page (web/, docs/provably-fair.md "Verify in your
# browser"): npm ci from web/package-lock.json into web/node_modules, then
# esbuild bundles it into one self-contained HTML file.
WEB_SRC  := web/build.mjs $(sort $(wildcard web/src/*))
WEB_PAGE := $(BUILD)/web/verify.html
web: $(WEB_PAGE)
web/node_modules/.fairshuf-stamp: web/package.json web/package-lock.json
	@echo "  NPM     web/node_modules (npm ci)"
	@cd web && npm ci --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@
$(WEB_PAGE): $(WEB_SRC) web/node_modules/.fairshuf-stamp
	@echo "  WEB     $@"
	@node web/build.mjs $@
# docs/verify-desktop.png and docs/verify-phone.png (Debian's chromium)
web-screenshots: $(WEB_PAGE)
	@BUILD=$(BUILD) node tests/web/screenshots.mjs
# Opt-in: the browser tests catch each planted bug of tests/web/mutants.mjs
web-mutants: $(WEB_PAGE) $(BUILD)/fairshuf
	@BUILD=$(BUILD) node tests/web/mutants.mjs $(MUTANTS)

# the load client of bench/serve.sh and tests/cli/serve.bats
$(BUILD)/tests/serve-load: bench/serve_load.c
	@mkdir -p $(dir $@)
	@$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(OPT) $(SANLD) -pthread -o $@ $<

# The Python package as a user gets it: an sdist that carries the C sources
# (dist/fairshuf-V.tar.gz; installs offline with pip install
# --no-build-isolation) and a wheel built from that sdist.
sdist:
	@mkdir -p dist
	@cd python && $(PYTHON) setup.py -q sdist -d ../dist >/dev/null
	@ls dist/fairshuf-*.tar.gz
wheel: sdist
	@$(PYTHON) -m pip wheel -q --no-build-isolation --no-deps --no-index -w dist \
	    $$(ls -t dist/fairshuf-*.tar.gz | head -n 1)
	@ls dist/fairshuf-*.whl

# make madvise() fail: the fork tests through the no-MADV_WIPEONFORK fallback
$(BUILD)/tests/failmadvise.so: tests/support/failmadvise.c
	@mkdir -p $(dir $@)
	@$(CC) -shared -fPIC -O2 -o $@ $<

# test-build: what the suite runs; test: runs it (tests/run.sh).  The check
# targets build with -j$(JOBS), then run the suite.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test-build: all $(TEST_BIN) $(BUILD)/tests/failrandom.so $(BUILD)/tests/failmadvise.so \
      $(BUILD)/tests/serve-load $(PY_EXT) $(WEB_PAGE)
test: test-build
	@BUILD=$(BUILD) PYTHON=$(PYTHON) tests/run.sh

demo: setup-build
	@echo "building (make all) ..."
	@$(MAKE) --no-print-directory -s all >/dev/null
	@BUILD=$(BUILD) scripts/demo.sh

check: setup
	@$(MAKE) --no-print-directory -j$(JOBS) test-build
	@$(MAKE) --no-print-directory test

check-sanitize: setup
	@$(MAKE) --no-print-directory -j$(JOBS) test-build BUILD=build-san SANITIZE=1
	@$(MAKE) --no-print-directory test BUILD=build-san SANITIZE=1

check-clang: setup
	@$(MAKE) --no-print-directory -j$(JOBS) test-build BUILD=build-clang CC=clang CXX=clang++
	@$(MAKE) --no-print-directory test BUILD=build-clang CC=clang CXX=clang++

# Opt-in: the suite with the long matrices that `make check` samples
# (FS_TEST_LONG=1, tests/cli/long.bash: every P, count and piece size of
# tests/cli/mpi*.bats, 1,000 player steps, ...).
# fairshuf serve on PostgreSQL: three instances, kill -9 twenty times under
# load (tests/opt-in/serve_pg_crash.bats; FS_CRASH_KILLS=N for more)
check-pg-crash: all $(BUILD)/tests/serve-load
	@BUILD=$(BUILD) FS_BIN=$(abspath $(BUILD))/fairshuf bats --tap tests/opt-in/serve_pg_crash.bats

check-long: setup
	@$(MAKE) --no-print-directory -j$(JOBS) test-build
	@FS_TEST_LONG=1 $(MAKE) --no-print-directory test

# Opt-in (about 15 minutes here, not in CI): the threaded code -- the bucket
# shuffle's phases, lines' intake, sort and spill, attack, fairshuf-mpi --
# under ThreadSanitizer; a report makes its process exit 66, a failure.
check-tsan: setup
	@$(MAKE) --no-print-directory -j$(JOBS) test-build BUILD=build-tsan SANITIZE=thread
	@$(MAKE) --no-print-directory test BUILD=build-tsan SANITIZE=thread

# The whole suite on a build whose ChaCha20 keystream is OpenSSL's, forced
# (CHACHA=openssl; `make check` already is one where libssl-dev is found).
check-openssl: setup
	@$(MAKE) --no-print-directory -j$(JOBS) test-build BUILD=build-openssl CHACHA=openssl
	@$(MAKE) --no-print-directory test BUILD=build-openssl CHACHA=openssl

# The fallback build (CHACHA=sodium: libsodium's keystream, where OpenSSL
# 3.0+ is missing) must give the same bytes: CI runs the known-answer
# vectors, docs/vectors.md and the goldens on it, and the OS-keyed
# generator's fork safety and key erasure (about a minute).
SODIUM_CHECKS := test_rng_vectors test_keyed test_bucket test_fork \
                 test_erasure perm_rng.bats perm_lazy.bats deal.bats
check-sodium: setup
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=build-sodium CHACHA=sodium all \
	    $(addprefix build-sodium/tests/,$(filter test_%,$(SODIUM_CHECKS)) \
	    failrandom.so failmadvise.so)
	@for t in $(SODIUM_CHECKS); do \
	    out=$$(BUILD=build-sodium FS_TEST_FILTER=$$t tests/run.sh); st=$$?; \
	    echo "$$out" | tail -n 1 | sed "s/^/sodium $$t: /"; \
	    [ $$st -eq 0 ] || { echo "$$out"; exit 1; }; done

# Opt-in: the keyed permutation's long check -- bijection exhaustively at
# 2^k - 1, 2^k, 2^k + 1 up to k = 22 (the suite does k <= 16).
check-keyed: $(BUILD)/tests/test_keyed
	FS_KEYED_EXHAUSTIVE=1 $(BUILD)/tests/test_keyed

# ---- optional: fairshuf-mpi (mpi/), built when mpicc is found ----------
# build/libfairshuf-mpi.a (mpi/fairshuf_mpi.h: fs_mpi_shuffle) and
# build/fairshuf-mpi; tests/cli/mpi.bats runs it under mpirun.  mpicc
# wraps $(CC) (OMPI_CC), so the clang and sanitizer builds cover it too.
MPICC    ?= $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
MPI_LIB_SRC := $(filter-out mpi/main.c,$(sort $(wildcard mpi/*.c)))  # not mpi/tests/
MPI_LIB_OBJ := $(MPI_LIB_SRC:%.c=$(BUILD)/obj/%.o)
MPI_HDR     := $(wildcard mpi/*.h)

$(BUILD)/obj/mpi/%.o: mpi/%.c $(HEADERS) $(MPI_HDR)
	@mkdir -p $(dir $@)
	@echo "  MPICC   $<"
	@OMPI_CC=$(CC) $(MPICC) $(ALL_CFLAGS) -Impi -c $< -o $@

$(BUILD)/libfairshuf-mpi.a: $(MPI_LIB_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@ar rcs $@ $^

$(BUILD)/fairshuf-mpi: $(BUILD)/obj/mpi/main.o $(BUILD)/libfairshuf-mpi.a \
                       $(BUILD)/obj/common/cli.o $(BUILD)/obj/common/pending.o \
                       $(BUILD)/libfairshuf.a
	@echo "  LD      $@"
	@OMPI_CC=$(CC) $(MPICC) $(SANLD) -o $@ $^ $(LDLIBS)

all: $(BUILD)/libfairshuf-mpi.a $(BUILD)/fairshuf-mpi

# unit test of the local pieces; tests/run.sh runs every tests/test_*
$(BUILD)/tests/test_mpi_sort: mpi/tests/test_mpi_sort.c $(BUILD)/libfairshuf-mpi.a \
                              $(BUILD)/libfairshuf.a $(HEADERS) $(MPI_HDR)
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	@OMPI_CC=$(CC) $(MPICC) $(ALL_CFLAGS) $(TEST_CFLAGS) -Impi $(SANLD) -o $@ $< \
	    $(BUILD)/libfairshuf-mpi.a $(BUILD)/libfairshuf.a $(TEST_LIBS) $(LDLIBS)

test-build: $(BUILD)/tests/test_mpi_sort

.PHONY: install-mpi
install-mpi: install $(BUILD)/fairshuf-mpi
	install -m 644 mpi/fairshuf_mpi.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(BUILD)/libfairshuf-mpi.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/fairshuf-mpi $(DESTDIR)$(PREFIX)/bin/
endif

# ---- optional: fairshuf-mpd (mpd/), built when libmpdclient is found ----
# `fairshuf mpd` runs it from beside itself (programs/serve_exec.c), so the
# other subcommands do not load libmpdclient and fairshuf builds without
# it.  It shares the state-file helpers with the CLI (common/playlist_state.c).
MPDCLIENT := $(shell pkg-config --exists libmpdclient 2>/dev/null && echo yes)
ifeq ($(MPDCLIENT),yes)
MPD_SRC  := $(sort $(wildcard mpd/*.c))
MPD_OBJ  := $(MPD_SRC:%.c=$(BUILD)/obj/%.o)
$(MPD_OBJ): ALL_CFLAGS += $(shell pkg-config --cflags libmpdclient)
$(BUILD)/obj/mpd/%.o: mpd/%.c $(HEADERS) mpd/mpd.h
$(BUILD)/fairshuf-mpd: $(MPD_OBJ) $(BUILD)/obj/common/playlist_state.o \
                       $(BUILD)/obj/common/cli.o $(BUILD)/obj/common/pending.o \
                       $(BUILD)/libfairshuf.a
	@echo "  LD      $@"
	@$(CC) $(SANLD) -o $@ $^ $(shell pkg-config --libs libmpdclient) $(LDLIBS)
all: $(BUILD)/fairshuf-mpd
INSTALL_MPD := $(BUILD)/fairshuf-mpd
endif

# cppcheck as gcc on x86-64 Linux compiles it (one configuration: what the
# suite tests), with C11's _Noreturn spelled so that cppcheck knows cli_die
# and its kind end the program.  False positives are suppressed inline
# (cppcheck-suppress) with the reason beside them.
LINT_DEFS = -D__GNUC__=12 -D__x86_64__ -D__SSE2__ -D__linux__ \
    -D__BYTE_ORDER__=1234 -D__ORDER_LITTLE_ENDIAN__=1234 \
    '-D_Noreturn=__attribute__((noreturn))'
lint:
	cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability \
	    --inline-suppr $(LINT_DEFS) -Iinclude -Ilib -Icommon -Impi \
	    lib common programs service mpi mpd examples

bench: all
	@$(MAKE) --no-print-directory -C bench BUILD=$(abspath $(BUILD))

battery: all
	@BUILD=$(BUILD) bench/battery.sh

# Opt-in: plants each mutant of lib/**/MUTANTS, common/, programs/ and service/ MUTANTS in a
# scratch copy and runs the suite on it (docs/testing.md).
mutants:
	@MUTANTS=$(MUTANTS) scripts/mutants.py

install: all
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/lib/cmake/fairshuf
	install -m 644 include/fairshuf.h $(DESTDIR)$(PREFIX)/include/
	if ls include/fairshuf/*.h >/dev/null 2>&1; then install -d $(DESTDIR)$(PREFIX)/include/fairshuf && \
	    install -m 644 include/fairshuf/*.h $(DESTDIR)$(PREFIX)/include/fairshuf/; fi
	install -m 644 $(BUILD)/libfairshuf.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libfairshuf.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libfairshuf.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf libfairshuf.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libfairshuf.so
	install -m 755 $(BUILD)/fairshuf $(BUILD)/fairshuf-serve $(INSTALL_MPD) $(DESTDIR)$(PREFIX)/bin/
	# the mpv script (docs/playlist.md "In MPD and mpv") and the systemd
	# user unit of `fairshuf mpd run`
	install -d $(DESTDIR)$(PREFIX)/share/fairshuf/mpv $(DESTDIR)$(PREFIX)/lib/systemd/user
	install -m 644 contrib/mpv/fairshuf.lua $(DESTDIR)$(PREFIX)/share/fairshuf/mpv/
	sed -e 's|@PREFIX@|$(PREFIX)|g' contrib/systemd/fairshuf-mpd.service.in \
	    > $(DESTDIR)$(PREFIX)/lib/systemd/user/fairshuf-mpd.service
	install -m 644 docs/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	# The verifier page, where `fairshuf serve` looks for it (built by `make web`).
	if test -f $(WEB_PAGE); then install -d $(DESTDIR)$(PREFIX)/share/fairshuf/web && \
	    install -m 644 $(WEB_PAGE) $(DESTDIR)$(PREFIX)/share/fairshuf/web/; fi
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@REQUIRES@|$(PKGS)|g' \
	    scripts/fairshuf.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/fairshuf.pc
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    scripts/fairshuf-config.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/fairshuf/fairshuf-config.cmake

# Opt-in: also answer to the name `shuf` (never done by plain install).
install-shuf-link: install
	ln -sf fairshuf $(DESTDIR)$(PREFIX)/bin/shuf

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/fairshuf.h $(DESTDIR)$(PREFIX)/lib/libfairshuf.* \
	    $(DESTDIR)$(PREFIX)/bin/fairshuf $(DESTDIR)$(PREFIX)/bin/fairshuf-serve $(DESTDIR)$(PREFIX)/bin/fairshuf-mpd \
	    $(DESTDIR)$(PREFIX)/lib/systemd/user/fairshuf-mpd.service $(DESTDIR)$(PREFIX)/lib/pkgconfig/fairshuf.pc \
	    $(DESTDIR)$(PREFIX)/share/man/man1/fairshuf*.1
	rm -rf $(DESTDIR)$(PREFIX)/include/fairshuf $(DESTDIR)$(PREFIX)/lib/cmake/fairshuf \
	    $(DESTDIR)$(PREFIX)/share/fairshuf

clean:
	rm -rf build build-san build-clang build-tsan build-openssl build-sodium dist

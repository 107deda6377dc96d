# lorebot - a lore-based patch review and CI bot for the Linux mm tree
#
#   make            build build/lorebot (-Werror)
#   make test       install dependencies, build with ASan+UBSan, run every test
#   make demo       install dependencies, build, run the bot on local defaults
#   make fuzz       build the libFuzzer targets (clang) into build-fuzz/
#   make bench      run the benchmarks (see bench/README.md)
#   make check-layers  check that includes and calls point down only
#                   (cmd -> ci -> checkers -> bot -> lib; ci/check-layers.sh)
#   make check-prefixes  check that exported functions are named after
#                   their files (ci/check-prefixes.sh)
#   make check-refs  check that every lorebot function and file a header
#                   comment or doc/technical/ names exists (ci/check-refs.py)
#   make deps       install the Debian packages (ci/deps.sh; idempotent)
#   make install    install the binary, data, man pages, unit and example
#                   configuration (PREFIX=/usr/local, DESTDIR, SYSCONFDIR=/etc)
#
# SAN=1 builds the sanitizer variant into build-san/; V=1 shows commands.

PKGS := libcurl libgit2 json-c libpcre2-8 sqlite3 gmime-3.0 zlib libmicrohttpd
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

CC ?= gcc
WARN := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter -Wvla
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

ifeq ($(FUZZ),1)
B := build-fuzz
CC := clang
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
LDOPT := -fsanitize=fuzzer,address,undefined
else ifeq ($(SAN),1)
B := build-san
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
# the sanitizer runtimes linked in and no PIE: each start of an
# instrumented lorebot relocated ~210,000 pointers and resolved libasan's
# interceptors, a third of a short command's page faults and CPU (the
# tests start it thousands of times; bench/README.md, "The first run")
LDOPT := -fsanitize=address,undefined -static-libasan -static-libubsan -no-pie
else
B := build
OPT := -O2 -g
LDOPT :=
endif

# BUILD=dir builds there instead (a second tree while tests use build/)
ifdef BUILD
B := $(BUILD)
endif

CFLAGS_ALL = -std=gnu11 $(WARN) $(OPT) -I. $(PKG_CFLAGS) \
	-D_GNU_SOURCE -MMD -MP $(CFLAGS)
LDFLAGS_ALL = $(LDOPT) $(LDFLAGS)
LIBS = $(PKG_LIBS) -lm

# The layers, top to bottom: cmd/ (the front ends: the command table,
# one cmd-<name>.c per command, the daemon's loop), ci/, checkers/,
# bot/ (the domain), lib/ (the generic toolkit).  The library is all but
# the front ends, which link over it as git's builtin/ does over libgit.a.
LIB_SRC := $(wildcard lib/*.c bot/*/*.c checkers/*.c ci/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
CMD_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard cmd/*.c))
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/unit/%)

.PHONY: all lorebot test unit demo deps fuzz fuzzers bench clean san install \
	check-layers check-prefixes check-refs
all: $(B)/lorebot

ifeq ($(V),1)
Q :=
else
Q := @
endif

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

# The version is compiled into bot/base/version.o alone, again whenever
# git describe changes (git's GIT-VERSION-FILE)
$(B)/VERSION-FILE: FORCE
	@mkdir -p $(B)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
$(B)/bot/base/version.o: $(B)/VERSION-FILE
$(B)/bot/base/version.o: CFLAGS_ALL += -DLOREBOT_VERSION='"$(VERSION)"'
.PHONY: FORCE

$(B)/liblorebot.a: $(LIB_OBJ)
	@rm -f $@
	$(Q)ar rcs $@ $^

$(B)/lorebot: $(CMD_OBJ) $(B)/liblorebot.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(B)/tests/unit/%: tests/unit/%.c tests/unit/tap.h $(B)/liblorebot.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(B)/liblorebot.a $(LIBS)

unit: $(UNIT_BIN)

# the measuring tools of bench/ (bench/coverage.py)
$(B)/bench/%: bench/%.c $(B)/liblorebot.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(B)/liblorebot.a $(LIBS)

FUZZ_SRC := $(wildcard tests/fuzz/*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
$(B)/fuzz-%: tests/fuzz/fuzz-%.c $(B)/liblorebot.a
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(B)/liblorebot.a $(LIBS)
fuzzers: $(FUZZ_BIN)

# the guest init's source is embedded with .incbin (ci/guest-init.c)
$(B)/ci/guest-init.o: ci/initramfs/init.c

deps:
	ci/deps.sh

san:
	$(MAKE) SAN=1 all unit

# The whole suite runs against the sanitizer build.  The three builds
# use every CPU unless make was given -j itself.
NPROC := $(shell nproc 2>/dev/null || echo 2)
JOBS := $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
test: deps
	$(MAKE) $(JOBS) SAN=1 all unit
	$(MAKE) $(JOBS) all
	$(MAKE) $(JOBS) FUZZ=1 fuzzers
	LOREBOT=$(CURDIR)/build-san/lorebot UNIT_DIR=$(CURDIR)/build-san/tests/unit \
		ci/run-tests.sh

demo: deps
	$(MAKE) $(JOBS) all
	ci/demo.sh

fuzz:
	$(MAKE) FUZZ=1 fuzzers

bench: all
	bench/run.sh

# the objects say who uses whose symbols: build them first
check-layers: all
	ci/check-layers.sh . $(B)

# the objects say which functions are exported: build them first
check-prefixes: all
	ci/check-prefixes.sh . $(B)

# the objects say which functions exist: build them first
check-refs: all
	ci/check-refs.py . $(B)

# Where the binary looks for its data: <bindir>/../share/lorebot
# (lib/template.c, ci/profile.c).  The unit names the installed binary;
# the example configuration never replaces one in use.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
BINDIR := $(DESTDIR)$(PREFIX)/bin
DATADIR := $(DESTDIR)$(PREFIX)/share/lorebot
MANDIR := $(DESTDIR)$(PREFIX)/share/man
MAN_PAGES := $(filter-out %.in %.tail,$(wildcard doc/*.[1-8]))
install: $(B)/lorebot
	install -d $(BINDIR) $(DATADIR)/templates $(DATADIR)/fragments \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/lorebot \
		$(DESTDIR)$(PREFIX)/share/doc/lorebot
	install -m 755 $(B)/lorebot $(BINDIR)/lorebot
	install -m 644 templates/* $(DATADIR)/templates/
	install -m 644 config/fragments/*.config $(DATADIR)/fragments/
	set -e; for p in $(MAN_PAGES); do \
		s=$${p##*.}; install -d $(MANDIR)/man$$s; \
		install -m 644 $$p $(MANDIR)/man$$s/; done
	sed 's|/usr/local/bin/lorebot|$(PREFIX)/bin/lorebot|; s|/etc/lorebot/|$(SYSCONFDIR)/lorebot/|g' \
		config/lorebot.service >$(DESTDIR)$(UNITDIR)/lorebot.service
	chmod 644 $(DESTDIR)$(UNITDIR)/lorebot.service
	install -m 644 config/lorebot.conf $(DESTDIR)$(PREFIX)/share/doc/lorebot/lorebot.conf.example
	test -e $(DESTDIR)$(SYSCONFDIR)/lorebot/lorebot.conf || \
		install -m 644 config/lorebot.conf $(DESTDIR)$(SYSCONFDIR)/lorebot/lorebot.conf

clean:
	rm -rf build build-san build-fuzz

# the dependencies of the tree being built (B), whichever it is
-include $(shell find $(B) -name '*.d' 2>/dev/null)

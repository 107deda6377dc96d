#!/bin/sh
# Run every test through prove and print its summary.
#   LOREBOT   the binary under test (default build/lorebot)
#   UNIT_DIR  where the C unit test binaries are (default build/tests/unit)
#   TESTS     a subset of tests/*.t to run (default: all)
set -eu
cd "$(dirname "$0")/.."
LOREBOT_SRC=$PWD
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
UNIT_DIR=${UNIT_DIR:-$PWD/build/tests/unit}
export LOREBOT_SRC LOREBOT
# leaks are errors; GLib's type system keeps reachable memory, which LSan ignores
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
tests=${TESTS:-$(ls tests/t[0-9]*.t)}
units=$(find "$UNIT_DIR" -maxdepth 1 -type f -name 't-*' ! -name '*.d' 2>/dev/null | sort)
exec prove --timer $units $tests

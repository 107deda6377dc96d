#!/bin/sh
# Run every test through prove, several at once, and print its summary
# with each test's wall time (prove --timer: the next slow test is
# visible in every CI log).
#   LOREBOT     the binary under test (default build/lorebot)
#   UNIT_DIR    where the C unit test binaries are (default build/tests/unit)
#   TESTS       a subset of tests/*.t to run (default: all)
#   TEST_JOBS   tests run at once (default: the number of CPUs plus one)
#   TEST_CPU_LOG  if set, each test's CPU time (all its processes) and wall
#               time are appended there (ci/run-one.sh)
#
# The order is the schedule.  A test says when it wants to start with a
# "# schedule: first" or "# schedule: last" line; the rest (and the unit
# tests) run in between, in name order ("# schedule: middle N" gives one
# of them a weight).  "first" is where the kernel base
# builds are made (t0505) while light tests run beside it; "last" are the
# tests that build or boot on those bases: started earlier they would
# only hold a slot while they wait for a base build directory's lock.
# A number after the class is the test's warm wall time in minutes on a
# quiet 2-core machine (bench/README.md, "The first run"): within a
# class the longest start first, so that the longest test does not
# start last and run alone at the end (longest processing time first).
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
jobs=${TEST_JOBS:-$(($(nproc) + 1))}
tests=${TESTS:-$(ls tests/t[0-9]*.t)}
units=$(find "$UNIT_DIR" -maxdepth 1 -type f -name 't-*' ! -name '*.d' 2>/dev/null | sort)

# schedule CLASS: the tests of $tests whose "# schedule:" line says CLASS
# ("" for those without one), the longest first, then by name
schedule() {
	for t in $tests; do
		sed -n 's/^# schedule: *\([a-z]*\) *\([0-9.]*\).*/\1 \2/p' "$t" |
			head -n 1 | {
				read -r c w || :
				[ "${c:-}" != middle ] || c=
				[ "${c:-}" = "$1" ] && echo "${w:-0} $t"
			} || :
	done | sort -k1,1gr -k2,2 | cut -d' ' -f2
}
order="$(schedule first) $units $(schedule '') $(schedule last)"
echo "# $(echo $order | wc -w) test files, $jobs at a time" >&2
# prove itself, with its output unbuffered: a CI log that is cut short
# still shows every test that ended
# each test through ci/run-one.sh: its stderr must not reach prove
# before it ends (see there)
exec perl -MApp::Prove -e '$| = 1; my $app = App::Prove->new;
	$app->process_args(@ARGV); exit($app->run ? 0 : 1)' -- \
	--timer -j "$jobs" --exec "$PWD/ci/run-one.sh" $order

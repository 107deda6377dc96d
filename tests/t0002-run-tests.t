#!/bin/sh
# ci/run-tests.sh, the harness of make test and CI: tests run side by
# side in their schedule's order, and one busy test does not hold the
# others (prove -j used to wait inside a test that had written to stderr
# until its next TAP line: a base build held every other test for as long
# as it ran).  Each test's stderr still reaches the log.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

F=$FIXTURES/run-tests
mkdir -p "$TMP/units"
RUN_TESTS_MARK=$TMP/mark TEST_JOBS=2 UNIT_DIR=$TMP/units \
	TESTS="$F/last.t $F/quick.t $F/slow-first.t" TEST_CPU_LOG=$TMP/cpu.log \
	"$LOREBOT_SRC/ci/run-tests.sh" >"$TMP/out" 2>"$TMP/err"
is "$?" 0 "the run passes"
like "$(cat "$TMP/out")" "slow-first\\.t \\.+ ok" "the busy test saw another test run meanwhile"
like "$(cat "$TMP/out")" "\\[[0-9:]+\\] [^ ]*last\\.t \\.+ ok +[0-9]+ ms" "with each test's wall time"
is "$(sed -n 's/^# \([0-9]*\) test files, \([0-9]*\) at a time$/\1 \2/p' "$TMP/err")" "3 2" \
	"three files, two at a time"
like "$(cat "$TMP/err")" "slow-first: progress on stderr" "a test's stderr is in the log"
like "$(cat "$TMP/err")" "quick: a line on stderr" "every test's"
is "$(awk '{ print $3 }' "$TMP/cpu.log" | sed 's|.*/||' | sort | tr '\n' ' ')" \
	"last.t quick.t slow-first.t " "TEST_CPU_LOG: a line per test"
ok "with CPU and wall seconds" awk 'NF != 3 || $1 !~ /^[0-9.]+$/ || $2 !~ /^[0-9.]+$/ { exit 1 }' \
	"$TMP/cpu.log"

# the order: "first", the unit tests, the rest, "last"; within a class
# the longest (the number after the class) first
cp "$F/quick.t" "$TMP/units/t-fake"
chmod +x "$TMP/units/t-fake"
: >"$TMP/mark"
RUN_TESTS_MARK=$TMP/mark TEST_JOBS=1 UNIT_DIR=$TMP/units \
	TESTS="$F/last.t $F/long-last.t $F/quick.t $F/long-middle.t $F/slow-first.t" \
	"$LOREBOT_SRC/ci/run-tests.sh" >"$TMP/out1" 2>/dev/null
is "$(sed -n 's/^\[[0-9:]*\] \([^ ]*\) \.* ok.*/\1/p' "$TMP/out1" | sed 's|.*/||' | tr '\n' ' ')" \
	"slow-first.t t-fake long-middle.t quick.t long-last.t last.t " "the schedule's order"

# a failing test fails the run
printf '#!/bin/sh\necho 1..1\necho "not ok 1 - broken"\n' >"$TMP/bad.t"
UNIT_DIR=$TMP/none TESTS="$TMP/bad.t" "$LOREBOT_SRC/ci/run-tests.sh" >"$TMP/out2" 2>&1
is "$?" 1 "a failing test: exit 1"
done_testing

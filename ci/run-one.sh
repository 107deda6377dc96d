#!/bin/sh
# run-one.sh TEST: how ci/run-tests.sh has prove run one test (a .t
# script or a C unit test binary).
#
# The test's stderr goes to a file and is copied to prove's stderr when
# the test ends.  prove -j reads a test's stderr inside its wait for that
# test's next TAP line: a test that printed a line on stderr (kbuild or
# mm-tree progress) and then built kernels for twenty minutes held the
# whole harness, and no other test started or was reaped meanwhile.
#
# With TEST_CPU_LOG set, the test runs in a cpuacct cgroup of its own and
# "<cpu s> <wall s> <test>" is appended there: the CPU time of every
# process it started, the build user's kernel builds and the qemu boots
# included, which prove's cusr/csys miss.
set -u
t=$1
err=$(mktemp "${TMPDIR:-/tmp}/lorebot-stderr.XXXXXX") || exit 1
cg=
if [ -n "${TEST_CPU_LOG:-}" ]; then
	cg=/sys/fs/cgroup/cpuacct/lorebot-test.$$
	mkdir "$cg" 2>/dev/null && echo $$ >"$cg/tasks" || cg=
fi
start=$(date +%s.%N)
if [ -x "$t" ] && ! expr "$t" : '.*\.t$' >/dev/null; then
	"$t" 2>"$err"
else
	sh "$t" 2>"$err"
fi
rc=$?
end=$(date +%s.%N)
cat "$err" >&2
rm -f "$err"
if [ -n "$cg" ]; then
	ns=$(cat "$cg/cpuacct.usage")
	echo $$ >/sys/fs/cgroup/cpuacct/tasks
	# processes the test left behind keep the group alive: not our business
	rmdir "$cg" 2>/dev/null
	echo "$ns $start $end $t" |
		awk '{ printf "%.1f %.1f %s\n", $1 / 1e9, $3 - $2, $4 }' >>"$TEST_CPU_LOG"
fi
exit $rc

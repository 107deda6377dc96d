#!/bin/sh
# cgcpu.sh TEST: run one test (a .t script or a unit binary) in a cpuacct
# cgroup of its own and append "<cpu s> <wall s> <test>" to $TEST_CPU_LOG.
# The CPU time counts every process the test starts, the kernel builds
# made as the build user and the qemu boots included, which prove's
# "cusr/csys" miss.  Used by ci/run-tests.sh when TEST_CPU_LOG is set.
set -u
t=$1
cg=/sys/fs/cgroup/cpuacct/lorebot-test.$$
start=$(date +%s.%N)
if mkdir "$cg" 2>/dev/null; then
	echo $$ >"$cg/tasks"
else
	cg=
fi
if [ -x "$t" ] && ! expr "$t" : '.*\.t$' >/dev/null; then
	"$t"
else
	sh "$t"
fi
rc=$?
end=$(date +%s.%N)
if [ -n "$cg" ]; then
	ns=$(cat "$cg/cpuacct.usage")
	echo $$ >/sys/fs/cgroup/cpuacct/tasks
	# processes the test left behind keep the group: it is removed later
	rmdir "$cg" 2>/dev/null
	echo "$ns $start $end $t" | awk '{ printf "%.1f %.1f %s\n", $1 / 1e9, $3 - $2, $4 }' \
		>>"$TEST_CPU_LOG"
fi
exit $rc

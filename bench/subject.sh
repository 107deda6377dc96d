#!/bin/sh
# One poisonous mail (issue 38, item 6): an in-body "Subject: [PATCH 1/2]"
# line followed by N bytes of ':' (0.8 MB and 2.4 MB), read by
# 'lorebot mailinfo' (the patch reader every stored mail goes through)
# next to 'git mailinfo', the tool a user would otherwise run.  Prints
# the wall and CPU time of each, best of RUNS, and fails when a command
# fails.
#
#   bench/subject.sh [BYTES...]     default 819200 2457600
#
# LOREBOT (default build/lorebot); RUNS (default 3); BENCH_TINY=1: 8 kB, once.
set -eu
cd "$(dirname "$0")/.."
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
RUNS=${RUNS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/lorebot-bench-subject.XXXXXX")
trap 'rm -rf "$T"' EXIT
[ $# -gt 0 ] || set -- 819200 2457600
# the tiny mode (tests/t0957-bench-tiny.t): 8 kB, once
if bench_tiny; then
	bench_skip "$*" "bytes (the tiny mode reads 8192, once)"
	set -- 8192
	RUNS=1
fi

# best NAME CMD...: of RUNS runs of CMD < the mail, the best wall time and
# the best CPU time (user + system), in seconds
best() {
	_name=$1
	shift
	_i=0
	: >"$T/times"
	while [ "$_i" -lt "$RUNS" ]; do
		_rc=0
		/usr/bin/time -f '%e %U %S' -o "$T/time" "$@" "$T/msg" "$T/patch" \
			<"$T/mail" >"$T/info" || _rc=$?
		if [ "$_rc" != 0 ]; then
			# time(1) says "Command exited with non-zero status N"
			bench_fail "$_name $(sed -n \
				's/^Command exited with non-zero status /exited /p' "$T/time")"
		fi
		cat "$T/time" >>"$T/times"
		_i=$((_i + 1))
	done
	awk -v n="$_name" 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 + $3 < c { c = $2 + $3 }
		END { printf "%s\twall %.2f s\tcpu %.2f s\n", n, w, c }' "$T/times"
}

for n in "$@"; do
	{
		printf 'From: Eve <eve@example.com>\nDate: Mon, 1 Jun 2026 10:00:00 +0000\n'
		printf 'Subject: [PATCH 1/2] mm: x\nMessage-ID: <poison@example.com>\n\n'
		printf 'Subject: [PATCH 1/2]'
		head -c "$n" /dev/zero | tr '\0' ':'
		printf ' mm: poison\n\nA body.\n\nSigned-off-by: Eve <eve@example.com>\n---\n'
		printf 'diff --git a/x b/x\nindex 587be6b..1111111 100644\n--- a/x\n+++ b/x\n'
		printf '@@ -1 +1 @@\n-x\n+y\n-- \n2.39.2\n'
	} >"$T/mail"
	echo "== in-body Subject: of $n bytes of ':' ($(wc -c <"$T/mail") bytes of mail)"
	best "lorebot mailinfo" "$LOREBOT" mailinfo
	sed -n 's/^Subject: /  subject: /p' "$T/info"
	best "git mailinfo" git mailinfo
	sed -n 's/^Subject: /  subject: /p' "$T/info"
done

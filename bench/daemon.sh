#!/bin/sh
# Benchmark the daemon (issue 10): latency from the delivery of a new
# series to the local lore (public-inbox-httpd, tests/lore-lab.sh) to
#  (a) the checker findings on the dashboard (/api/series/ID has a check
#      result), and
#  (b) the full verdict: every stage of every arch recorded and the reply
#      filed, with warm build directories (the base of each arch built
#      once before; the series' own patches are built and booted);
# and the daemon's resident memory when idle and at its peak (the daemon
# process itself: the job runners, make and qemu are its children).
#
# usage: bench/daemon.sh [ARCHS]    (default x86_64,arm64,riscv)
# The series is 2 patches touching mm/madvise.c and mm/mremap.c (as in
# tests/daemon-lib.sh), new comments each run so nothing is cached.
# A daemon that dies, or a stage not reached within DEADLINE seconds
# (default 3 hours), fails the benchmark with the daemon's last words.
# BENCH_TINY=1: no arch (apply, check and the reply only: no kernel is
# built or booted; the test says so), a deadline of 10 minutes.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
. "$SRC/bench/lib.sh"
ARCHS=${1:-x86_64,arm64,riscv}
DEADLINE=${DEADLINE:-10800}
if bench_tiny; then
	ARCHS= DEADLINE=600
	bench_skip "builds and boots" "no arch in the tiny mode: apply, check, the reply"
fi
TMP=$(mktemp -d)
LAB=$TMP/lab
cleanup() {
	# under set -e: nothing here may stop the lore lab's stop
	[ -z "${DPID:-}" ] || kill "$DPID" 2>/dev/null || true
	[ -z "${SAMPLER:-}" ] || kill "$SAMPLER" 2>/dev/null || true
	tests/lore-lab.sh stop "$LAB" 2>/dev/null || true
	[ -n "${KEEP:-}" ] && echo "kept $TMP" >&2 || rm -rf "$TMP"
}
trap cleanup EXIT
port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
now() {
	date +%s.%N
}
sql() {
	sqlite3 "$TMP/lorebot.db" "$1" 2>/dev/null
}
# alive WHAT: the daemon still runs and the deadline has not passed
alive() {
	kill -0 "$DPID" 2>/dev/null ||
		bench_fail "the daemon died before $1: $(tail -3 "$TMP/daemon.err")"
	[ "$(date +%s)" -lt "$END" ] ||
		bench_fail "no $1 within $DEADLINE s: $(tail -3 "$TMP/daemon.err")"
}

mm=$(ci/mm-tree.sh)
git clone -q --bare --shared "$mm" "$TMP/mm.git"
URL=$(tests/lore-lab.sh setup "$LAB" "$(port)" "$SRC/tests/fixtures/daemon/not-a-patch.mbox" \
	2>"$TMP/lab.err") || bench_fail "the lore lab did not start: $(tail -3 "$TMP/lab.err")"
URL=$URL/linux-mm/
cat >"$TMP/lorebot.conf" <<EOF
[lore]
	minpoll = 0
	indexlag = 0
[list "linux-mm"]
	pollinterval = 2s
[daemon]
	window = 5m
[reply]
	mode = outbox
EOF

# the series: stamped so that every run builds something new
W=$TMP/work
# only mm/ checked out: the series touches nothing else (not measured)
git clone -q --shared --no-checkout "$mm" "$W"
git -C "$W" sparse-checkout set mm
git -C "$W" checkout -q -b bench mm-new
stamp=$(date +%s)
sed -i "s|^ \*\tlinux/mm/madvise.c\$| *\tlinux/mm/madvise.c (bench $stamp)|" "$W/mm/madvise.c"
git -C "$W" commit -q -am "mm/madvise: a comment for the daemon benchmark

Signed-off-by: lorebot bench <bench@lorebot.invalid>"
sed -i "0,/^#include <linux\/mm.h>\$/s||#include <linux/mm.h>\n/* bench $stamp */|" "$W/mm/mremap.c"
git -C "$W" commit -q -am "mm/mremap: another comment for the benchmark

Signed-off-by: lorebot bench <bench@lorebot.invalid>"
git -C "$W" format-patch -q --cover-letter --thread --base=mm-new --to=linux-mm@kvack.org \
	-o "$TMP/mail" -2 >/dev/null
sed -i "s|\*\*\* SUBJECT HERE \*\*\*|mm: the benchmark series|; s|\*\*\* BLURB HERE \*\*\*|Two comments.|" \
	"$TMP"/mail/0000-*.patch
COVER=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$TMP"/mail/0000-*.patch)

DPORT=$(port)
"$LOREBOT" --db "$TMP/lorebot.db" --config "$TMP/lorebot.conf" daemon --url "$URL" \
	--repo "$TMP/mm.git" --outbox "$TMP/outbox" --arch "$ARCHS" \
	--listen "127.0.0.1:$DPORT" 2>"$TMP/daemon.err" &
DPID=$!
END=$(($(date +%s) + DEADLINE))
# RSS of the daemon, every 0.2 s, in kB
(while kill -0 "$DPID" 2>/dev/null; do
	awk '/^VmRSS/ { print $2 }' "/proc/$DPID/status" 2>/dev/null
	sleep 0.2
done >"$TMP/rss") &
SAMPLER=$!
until [ "$(sql "SELECT count(*) FROM messages")" = 1 ]; do alive "the first poll"; sleep 0.2; done
sleep 5
idle=$(awk '/^VmRSS/ { print $2 }' "/proc/$DPID/status")

t0=$(now)
for f in "$TMP"/mail/*.patch; do
	tests/lore-lab.sh deliver "$LAB" <"$f" || bench_fail "cannot deliver $f to the lore lab"
done
t_delivered=$(now)
# (a) the dashboard has the check result
until curl -sf "http://127.0.0.1:$DPORT/api/series/$COVER" 2>/dev/null |
	python3 -c 'import json, sys
d = json.load(sys.stdin)
sys.exit(0 if "\"check\"" in json.dumps(d) and "findings" in json.dumps(d) else 1)' 2>/dev/null; do
	alive "check result on the dashboard"
	sleep 0.1
done
t_check=$(now)
# (b) the reply is filed: every stage ended
until [ "$(sql "SELECT count(*) FROM jobs WHERE version = '$COVER' AND kind = 'reply' AND state = 'done'")" = 1 ]; do
	alive "reply filed"
	sleep 1
done
t_done=$(now)
kill "$DPID"
wait "$DPID" 2>/dev/null || true
DPID=
peak=$(sort -n "$TMP/rss" | tail -1)

bench_header
echo "archs: ${ARCHS:-none}"
awk -v a="$t0" -v b="$t_delivered" -v c="$t_check" -v d="$t_done" 'BEGIN {
	printf "delivery to lore:                 %6.1f s\n", b - a
	printf "(a) delivery to checker findings: %6.1f s (dashboard API)\n", c - a
	printf "(b) delivery to full verdict:     %6.1f s (reply filed)\n", d - a
}'
echo "per job (seconds):"
sql "SELECT '  ' || kind || CASE arch WHEN '' THEN '' ELSE ' ' || arch END || ': ' ||
	(finished - started) FROM jobs WHERE version = '$COVER' ORDER BY id"
echo "daemon RSS: idle $((idle / 1024)) MiB, peak $((peak / 1024)) MiB"

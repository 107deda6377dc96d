#!/bin/sh
# How long the daemon takes from SIGTERM to its exit, in the states it can
# be in, for one or more builds, runs alternating between the builds:
#   idle      an empty database, the lore refusing connections (backing off)
#   hung      the lore accepts and never answers (the fetch child waits)
#   locked    jobs running, another process holding the database's write
#             lock (as a long `lorebot db rebuild` or `fetch --mbox` would)
#   backlog   the first start on an archive nobody tested yet: a copy of
#             bench/dash-load.sh's 100,000 versions, every one to plan
# SIGTERM is sent 1.5 s after the start (backlog: 1 s, while the daemon
# plans).  Prints the median and the maximum per state and build.
#
#   bench/sigterm.sh BINARY...       default build/lorebot
#
# RUNS (default 5) per state and build; BENCH_DIR as bench/dash-load.sh
# (backlog needs its versions-100000.db, the tiny mode its versions-2000.db;
# the state is skipped without it).
# A daemon that is not running when SIGTERM is sent, or that exits with
# another status than 0, fails the benchmark.  BENCH_TINY=1: one run.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
. "$SRC/bench/lib.sh"
RUNS=${RUNS:-5}
! bench_tiny || RUNS=1
DIR=${BENCH_DIR:-/var/tmp/lorebot-bench}
PY=/usr/bin/python3
W=$(mktemp -d "${TMPDIR:-/tmp}/lorebot-bench-term.XXXXXX")
HOLE= LOCK=
trap '[ -n "$HOLE" ] && kill $HOLE 2>/dev/null; [ -n "$LOCK" ] && kill $LOCK 2>/dev/null;
	rm -rf "$W"' EXIT
[ $# -gt 0 ] || set -- "$SRC/build/lorebot"
LOREBOT=$1
BACKLOG=$DIR/versions-100000.db
! bench_tiny || BACKLOG=$DIR/versions-2000.db
git init -q --bare "$W/repo.git"
free_port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
DEAD=$(free_port)
HOLE_PORT=$(free_port)
$PY -c '
import socket, sys, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
def peer(c):
    while c.recv(4096):
        pass
while True:
    c, _ = s.accept()
    threading.Thread(target=peer, args=(c,), daemon=True).start()
' "$HOLE_PORT" &
HOLE=$!
bench_run "$1" --db "$W/small.db" fetch --mbox "$SRC/tests/fixtures/lore/000_73a05b4700ab1a7a.mbox" \
	--list linux-mm
printf '[lore]\n\ttimeout = 10m\n\tretries = 0\n' >"$W/conf"

# one BINARY STATE: seconds from SIGTERM to exit (and its status)
one() {
	bin=$1 state=$2 url=http://127.0.0.1:$DEAD/linux-mm/ delay=1.5
	rm -f "$W/db" "$W/db-wal" "$W/db-shm"
	case $state in
	idle) ;;
	hung) url=http://127.0.0.1:$HOLE_PORT/linux-mm/ ;;
	locked) cp "$W/small.db" "$W/db" ;;
	backlog)
		cp "$BACKLOG" "$W/db"
		# an older build refuses a database a newer one migrated
		sqlite3 "$W/db" "DELETE FROM schema_version WHERE name = 'lore-3'"
		delay=1 ;;
	esac
	sync	# no writeback of the copy in the daemon's last fdatasync()
	"$bin" --db "$W/db" --config "$W/conf" daemon --url "$url" --repo "$W/repo.git" \
		--arch '' 2>"$W/daemon.err" &
	pid=$!
	if [ "$state" = locked ]; then
		sleep 0.5
		$PY -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
c.execute("BEGIN IMMEDIATE"); time.sleep(30)' "$W/db" &
		LOCK=$!
		delay=1
	fi
	sleep "$delay"
	kill -0 "$pid" 2>/dev/null || {
		wait "$pid" || true
		bench_fail "$state: the daemon had exited before SIGTERM: $(tail -3 "$W/daemon.err")"
	}
	t0=$(date +%s.%N)
	kill -TERM "$pid"
	wait "$pid" && rc=0 || rc=$?
	t1=$(date +%s.%N)
	[ -z "$LOCK" ] || { kill "$LOCK" 2>/dev/null; wait "$LOCK" 2>/dev/null || true; LOCK=; }
	[ "$rc" = 0 ] || bench_fail "$state: the daemon exited $rc on SIGTERM: $(tail -3 "$W/daemon.err")"
	awk -v a="$t0" -v b="$t1" -v rc="$rc" 'BEGIN { printf "%.3f %d\n", b - a, rc }'
}

states="idle hung locked"
if [ -f "$BACKLOG" ]; then
	states="$states backlog"
else
	bench_skip backlog "no $BACKLOG (bench/dash-load.sh makes it)"
fi
bench_header
for state in $states; do
	i=0
	while [ $i -lt "$RUNS" ]; do
		b=0
		for bin in "$@"; do
			b=$((b + 1))
			r=$(one "$bin" "$state")
			echo "$b $r"
		done
		i=$((i + 1))
	done >"$W/$state.times"
	b=0
	for bin in "$@"; do
		b=$((b + 1))
		awk -v b="$b" '$1 == b { print $2, $3 }' "$W/$state.times" | sort -n |
			awk -v s="$state" -v bin="$bin" '{ t[NR] = $1; if ($2) bad++ }
			END { printf "%-8s %s: median %.3f s, max %.3f s, %d runs, %d exits not 0\n",
				s, bin, t[int((NR + 1) / 2)], t[NR], NR, bad }'
	done
done

#!/bin/sh
# The dashboard's index at VERSIONS versions (bench/gen-archive.py
# --single: one version per message, every message in list_messages as a
# daemon leaves it, no planner statistics): a bounded load loop of
# REQUESTS sequential GET / against 127.0.0.1 (curl, keep-alive), then
# the same for GET /api/series (PATHS: other requests).  Prints median and
# p99 wall per request,
# the server's CPU per request (from /proc, user + sys) and its peak RSS
# (VmHWM).
#
#   bench/dash-load.sh [VERSIONS]      default 100000
#
# LOREBOT (default build/lorebot), REQUESTS (default 300), BENCH_DIR
# (default /var/tmp/lorebot-bench: the database is made once); INSTR=N
# also counts the instructions of N requests of each path (callgrind).
# Every request must answer 200, or the benchmark fails.  BENCH_TINY=1:
# 2,000 versions, 20 requests, INSTR=1.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
. "$SRC/bench/lib.sh"
N=${1:-100000}
REQUESTS=${REQUESTS:-300}
if bench_tiny; then
	[ $# -gt 0 ] || N=2000
	REQUESTS=20 INSTR=1
fi
DIR=${BENCH_DIR:-/var/tmp/lorebot-bench}
PY=/usr/bin/python3
DB=$DIR/versions-$N.db
SERVE=
trap '[ -n "$SERVE" ] && kill $SERVE 2>/dev/null' EXIT
mkdir -p "$DIR"

if [ ! -f "$DB" ]; then
	$PY "$SRC/bench/gen-archive.py" --single "$N" "$DIR/single-$N.mbox" "$DIR/single-news.mbox" \
		2>/dev/null
	rm -f "$DB.tmp"*
	bench_run "$LOREBOT" --db "$DB.tmp" fetch --mbox /dev/null
	sqlite3 "$DB.tmp" "INSERT INTO lists (name, url) VALUES ('linux-mm',
		'http://127.0.0.1/linux-mm/')"
	bench_run "$LOREBOT" --db "$DB.tmp" fetch --mbox "$DIR/single-$N.mbox" --list linux-mm
	bench_expect "versions stored" "$(grep -c '^From mboxrd@z' "$DIR/single-$N.mbox")" \
		"$(sqlite3 "$DB.tmp" "SELECT count(*) FROM versions WHERE gone = 0")"
	sqlite3 "$DB.tmp" "DROP TABLE IF EXISTS sqlite_stat1"
	rm -f "$DIR/single-$N.mbox" "$DIR/single-news.mbox"
	mv "$DB.tmp" "$DB"
fi
bench_header
versions=$(sqlite3 "$DB" "SELECT count(*) FROM versions WHERE gone = 0")
. "$SRC/bench/serve-lib.sh"
serve_start "$DB"
port=$PORT

cpu() {
	awk '{ print $14 + $15 }' "/proc/$SERVE/stat"
}

for path in ${PATHS:-/ /api/series}; do
	before=$(cpu)
	$PY - "http://127.0.0.1:$port$path" "$REQUESTS" <<'PY' >"$DIR/times"
import http.client, sys, time, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port)
for _ in range(int(sys.argv[2])):
    t = time.monotonic()
    c.request("GET", u.path + ("?" + u.query if u.query else ""))
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit("HTTP %d: %s" % (r.status, body[:300]))
    print("%.6f" % (time.monotonic() - t))
PY
	after=$(cpu)
	tck=$(getconf CLK_TCK)
	sort -n "$DIR/times" | awk -v p="$path" -v v="$versions" -v c=$((after - before)) \
		-v t="$tck" '{ a[NR] = $1 }
		END { p99 = int(NR * 0.99 + 0.5); if (p99 < 1) p99 = 1
		      printf "GET %s, %d versions: median %.1f ms, p99 %.1f ms, max %.1f ms," \
			" server CPU %.1f ms a request (%d requests)\n", p, v,
			a[int((NR + 1) / 2)] * 1000, a[p99] * 1000, a[NR] * 1000,
			c / t * 1000 / NR, NR }'
done
grep VmHWM "/proc/$SERVE/status" | awk '{ printf "serve peak RSS %.1f MB\n", $2 / 1024 }'
kill "$SERVE"
wait "$SERVE" 2>/dev/null || true
SERVE=

# instructions a request (what the machine's load does not change): the
# server under callgrind, counters zeroed once it answers, INSTR requests
# of each path, a dump
[ "${INSTR:-0}" -gt 0 ] || exit 0
for path in ${PATHS:-/ /api/series}; do
	rm -f "$DIR"/cg.out*
	SERVE_WRAP="valgrind --tool=callgrind --callgrind-out-file=$DIR/cg.out"
	serve_start "$DB"
	SERVE_WRAP=
	callgrind_control -z "$SERVE" >/dev/null 2>&1 ||
		bench_fail "callgrind_control cannot reach lorebot serve (pid $SERVE)"
	i=0
	while [ $i -lt "$INSTR" ]; do
		get "$path"
		i=$((i + 1))
	done
	callgrind_control -d "$SERVE" >/dev/null 2>&1 ||
		bench_fail "callgrind_control could not dump lorebot serve's counts"
	kill "$SERVE"
	wait "$SERVE" 2>/dev/null || true
	SERVE=
	# the dump after the requests: the counts since they were zeroed
	ls "$DIR"/cg.out.* >/dev/null 2>&1 || bench_fail "no callgrind dump of lorebot serve"
	cat "$DIR"/cg.out.* | awk -v p="$path" -v v="$versions" -v n="$INSTR" '
		/^summary:/ { s += $2 }
		END { printf "GET %s, %d versions: %.2f M instructions a request (callgrind, %d requests)\n",
			p, v, s / n / 1e6, n }'
	rm -f "$DIR"/cg.out*
done

#!/bin/sh
# The dashboard's index on a database whose messages belong to a list, as
# a daemon fetching from lore leaves it (list_messages filled; fetch
# --mbox alone writes none, which is why bench/report.sh never saw the
# per-version query scan all of them), without planner statistics (a
# database before its first ANALYZE).  Prints the median and the p99 of
# the wall time of GET /, one request after another against 127.0.0.1.
#
#   bench/dash-index.sh [MESSAGES]     default 10000 (bench/gen-mbox.py)
#
# LOREBOT (default build/lorebot); RUNS (default 50) requests, each of
# which must answer 200.  BENCH_TINY=1: 1,000 messages, 10 requests.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
. "$SRC/bench/lib.sh"
N=${1:-10000}
RUNS=${RUNS:-50}
if bench_tiny; then
	[ $# -gt 0 ] || N=1000
	RUNS=10
fi
PY=/usr/bin/python3
T=$(mktemp -d "${TMPDIR:-/tmp}/lorebot-bench-dash.XXXXXX")
SERVE=
trap '[ -n "$SERVE" ] && kill $SERVE 2>/dev/null; rm -rf "$T"' EXIT
DB=$T/bench.db

$PY "$SRC/bench/gen-mbox.py" "$N" "$T/in.mbox"
bench_run "$LOREBOT" --db "$DB" fetch --mbox "$T/in.mbox" --list linux-mm
bench_expect "messages stored" "$(grep -c '^From mboxrd@z' "$T/in.mbox")" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM messages")"
sqlite3 "$DB" "INSERT OR IGNORE INTO lists (name, url) VALUES ('linux-mm', 'http://127.0.0.1/linux-mm/');
	INSERT OR IGNORE INTO list_messages SELECT (SELECT id FROM lists WHERE name = 'linux-mm'), id
	FROM messages; DROP TABLE IF EXISTS sqlite_stat1;"
versions=$(sqlite3 "$DB" "SELECT count(*) FROM versions WHERE gone = 0")
. "$SRC/bench/serve-lib.sh"
bench_header
serve_start "$DB"
i=0
while [ $i -lt "$RUNS" ]; do
	r=$(curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$PORT/") || true
	[ "${r%% *}" = 200 ] || bench_fail "GET /: HTTP ${r%% *}"
	echo "${r#* }"
	i=$((i + 1))
done >"$T/times"
sort -n "$T/times" | awk -v n="$N" -v v="$versions" '{ a[NR] = $1 }
	END { p99 = int(NR * 0.99 + 0.5); if (p99 < 1) p99 = 1
	      printf "GET / with %d messages, %d versions: median %.0f ms, p99 %.0f ms (%d requests)\n",
		n, v, a[int((NR + 1) / 2)] * 1000, a[p99] * 1000, NR }'

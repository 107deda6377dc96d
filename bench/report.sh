#!/bin/sh
# Replies and the dashboard at the size of a year of linux-mm: record
# stage results, compose replies (--dry-run, and filed in an outbox),
# and serve pages and the JSON API.  Prints medians.
#
#   bench/report.sh [MESSAGES]      default 12000 messages (bench/gen-mbox.py)
#
# LOREBOT (default build/lorebot); RUNS (default 5) requests per URL.
# Every command must succeed and every page answer 200, or the benchmark
# fails.  BENCH_TINY=1: 1,000 messages, 5 versions recorded, one request.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
. "$SRC/bench/lib.sh"
N=${1:-12000}
RUNS=${RUNS:-5}
NREC=50
if bench_tiny; then
	[ $# -gt 0 ] || N=1000
	RUNS=1 NREC=5
fi
PY=/usr/bin/python3
T=$(mktemp -d "${TMPDIR:-/tmp}/lorebot-bench-report.XXXXXX")
SERVE=
trap '[ -n "$SERVE" ] && kill $SERVE 2>/dev/null; rm -rf "$T"' EXIT
DB=$T/bench.db
R=$SRC/tests/fixtures/results

ms() {
	$PY -c 'import time; print(int(time.monotonic() * 1000))'
}
median() {
	sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

bench_header
$PY "$SRC/bench/gen-mbox.py" "$N" "$T/in.mbox"
t0=$(ms)
bench_run "$LOREBOT" --db "$DB" fetch --mbox "$T/in.mbox"
t1=$(ms)
bench_expect "messages stored" "$(grep -c '^From mboxrd@z' "$T/in.mbox")" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM messages")"
versions=$(sqlite3 "$DB" "SELECT count(*) FROM versions WHERE gone = 0")
echo "database: $N messages, $versions series versions (fetch --mbox: $((t1 - t0)) ms)"

# lorebot record, one process per result: 50 versions x 4 stages
sqlite3 "$DB" "SELECT id FROM versions WHERE gone = 0 ORDER BY date LIMIT $NREC" >"$T/ids"
t0=$(ms)
while read -r id; do
	bench_run "$LOREBOT" --db "$DB" record --version "$id" --stage apply "$R/apply-003.json"
	bench_run "$LOREBOT" --db "$DB" record --version "$id" --stage check "$R/check-003.json"
	bench_run "$LOREBOT" --db "$DB" record --version "$id" --stage build "$R/build-000.json"
	bench_run "$LOREBOT" --db "$DB" record --version "$id" --stage boot "$R/boot-000.json"
done <"$T/ids"
t1=$(ms)
bench_expect "versions and stages recorded" "$NREC 4" \
	"$(sqlite3 "$DB" "SELECT count(DISTINCT version) || ' ' || count(DISTINCT stage) FROM results")"
echo "record: $(awk "BEGIN {printf \"%.1f\", ($t1 - $t0) / ($NREC * 4)}") ms per 'lorebot record' ($((NREC * 4)) runs, process start included)"

# every other version gets the same results (copied in SQL)
first=$(head -1 "$T/ids")
sqlite3 "$DB" "INSERT INTO results (version, stage, arch, status, summary, findings, json,
	generation, recorded) SELECT v.id, r.stage, r.arch, r.status, r.summary, r.findings,
	r.json, v.generation, r.recorded FROM versions v, results r WHERE r.version = '$first'
	AND v.gone = 0 AND v.id NOT IN (SELECT version FROM results)"
echo "results: $(sqlite3 "$DB" 'SELECT count(*) FROM results') rows"
# their states, as a writer derives them (the SQL above marked them dirty)
bench_run "$LOREBOT" --db "$DB" db check

# replies: compose all (dry run), then compose, queue and file them
t0=$(ms)
bench_run -o "$T/dry.mbox" "$LOREBOT" --db "$DB" reply --dry-run
t1=$(ms)
mails=$(grep -c '^From .* Thu Jan  1 00:00:00 1970$' "$T/dry.mbox" || true)
[ "$mails" -gt 0 ] || bench_fail "reply --dry-run composed no reply"
echo "reply --dry-run: $mails replies composed in $((t1 - t0)) ms ($(( (t1 - t0) * 1000 / mails )) us each)"
printf '[reply]\n\tperhour = 0\n\tperauthor = 0\n' >"$T/conf"
t0=$(ms)
bench_run "$LOREBOT" --config "$T/conf" --db "$DB" reply --outbox "$T/outbox"
t1=$(ms)
bench_expect "replies filed" "$mails" "$(ls "$T/outbox/new" | wc -l)"
echo "reply --outbox: $(ls "$T/outbox/new" | wc -l) replies composed, stored and filed (fsync each) in $((t1 - t0)) ms"
t0=$(ms)
bench_run "$LOREBOT" --config "$T/conf" --db "$DB" reply --outbox "$T/outbox"
t1=$(ms)
echo "reply, nothing due: $((t1 - t0)) ms"

# the dashboard
. "$SRC/bench/serve-lib.sh"
serve_start "$DB"
sid=$(sqlite3 "$DB" "SELECT series FROM versions ORDER BY date DESC LIMIT 1")
for u in / "/?state=build-failed" /api/series "/api/series?limit=100" "/series/$sid" \
	"/api/series/$sid" /metrics /healthz; do
	i=0
	: >"$T/times"
	while [ $i -lt "$RUNS" ]; do
		r=$(curl -s -o "$T/body" -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$PORT$u") ||
			true
		[ "${r%% *}" = 200 ] || bench_fail "GET $u: HTTP ${r%% *}"
		echo "${r#* }" >>"$T/times"
		i=$((i + 1))
	done
	printf '%-28s %8s ms  %9s bytes\n' "GET $u" \
		"$(awk '{printf "%.1f\n", $1 * 1000}' "$T/times" | median)" "$(wc -c <"$T/body")"
done
echo "serve RSS after the requests: $(awk '/VmRSS/ {print $2, $3}' /proc/$SERVE/status), peak $(awk '/VmHWM/ {print $2, $3}' /proc/$SERVE/status)"

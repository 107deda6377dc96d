#!/bin/sh
# Cost that follows the news, counted without a clock: SQLite's own
# counters (LOREBOT_DB_STATS: virtual machine steps, rows stepped through
# in full scans of a table) for the same work on an archive of 1,000
# messages and on one of 10,000 (bench/gen-archive.py: threads,
# versions, reviews, a prolific sender).  A poll that stores the same 10
# messages (a fetch child's work: storing, incremental assembly), the
# dashboard's index and a page of /api/series each cost about the same
# on both; a query that read every version or message would cost ten
# times as much.  The times are bench/README.md's.  And /api/series is
# paged when the request does not say.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

# stat FILE FIELD: the sum of FIELD over the file's "db" lines
stat() {
	awk -v f="$2" '$1 == "db" { for (i = 2; i < NF; i++) if ($i == f) s += $(i + 1) }
		END { print s + 0 }' "$1"
}

# within RATIO A B: B is less than RATIO times A
within() {
	awk -v r="$1" -v a="$2" -v b="$3" 'BEGIN { exit !(b < r * a) }'
}

for n in 1000 10000; do
	"$PY" "$LOREBOT_SRC/bench/gen-archive.py" "$n" "$TMP/a$n.mbox" "$TMP/news$n.mbox" \
		2>/dev/null
	lorebot --db "$TMP/a$n.db" fetch --mbox /dev/null >/dev/null 2>&1
	sqlite3 "$TMP/a$n.db" "INSERT INTO lists (name, url) VALUES ('linux-mm',
		'http://127.0.0.1/linux-mm/')"
	lorebot --db "$TMP/a$n.db" fetch --mbox "$TMP/a$n.mbox" --list linux-mm >/dev/null 2>&1
	is "$?" 0 "$n messages imported"
	cp "$TMP/a$n.db" "$TMP/p$n.db"
	LOREBOT_DB_STATS=$TMP/poll$n.stats lorebot -v --db "$TMP/p$n.db" fetch \
		--mbox "$TMP/news$n.mbox" --list linux-mm >/dev/null 2>"$TMP/poll$n.err"
	is "$?" 0 "$n: the poll stored the news"
	like "$(cat "$TMP/poll$n.err")" "series: [0-9]+ messages assembled again, 10 of them new" \
		"$n: and assembled them incrementally"
	diag "$n: $(grep -o '[0-9]* messages assembled again' "$TMP/poll$n.err"); $(head -1 "$TMP/poll$n.stats" | cut -d' ' -f5-)"
	versions=$(sqlite3 "$TMP/a$n.db" "SELECT count(*) FROM versions")
	eval "versions$n=$versions"

	# the dashboard: one server per request, so that the counts are its
	for path in "/?limit=50" /api/series; do
		name=$(echo "$path" | tr -c 'a-z0-9\n' _)
		DB=$TMP/p$n.db
		LOREBOT_DB_STATS=$TMP/web$name$n.stats
		export LOREBOT_DB_STATS
		serve_start
		unset LOREBOT_DB_STATS
		for i in 1 2 3; do
			curl -s -o "$TMP/body$name$n" -w '%{http_code}\n' "$WEB$path"
		done >"$TMP/codes"
		serve_stop
		is "$(sort -u "$TMP/codes")" 200 "$n: GET $path answers"
		diag "$n: GET $path 3 times: $(head -1 "$TMP/web$name$n.stats" | cut -d' ' -f5-)"
	done
done
diag "versions: $versions1000 and $versions10000"
# /api/series is paged by default: 100 versions, the total, the next page
live=$(sqlite3 "$TMP/p10000.db" "SELECT count(*) FROM versions WHERE gone = 0")
is "$(json "$TMP/body_api_series10000" "(len(d['series']), d['total'], bool(d['next']))")" \
	"(100, $live, True)" "GET /api/series without a limit: a page of 100 of $live, and the next"
ok "the archives differ tenfold" test "$versions10000" -ge $((versions1000 * 8))

a=$(stat "$TMP/poll1000.stats" vmstep)
b=$(stat "$TMP/poll10000.stats" vmstep)
ok "a poll of 10 messages: at 10 times the archive, less than 2 times the work ($a, $b)" \
	within 2 "$a" "$b"
a=$(stat "$TMP/poll1000.stats" fullscan)
b=$(stat "$TMP/poll10000.stats" fullscan)
ok "and no table read whole: rows of full scans $a, $b" within 2 "$a" "$b"
for path in "/?limit=50" /api/series; do
	name=$(echo "$path" | tr -c 'a-z0-9\n' _)
	a=$(stat "$TMP/web${name}1000.stats" vmstep)
	b=$(stat "$TMP/web${name}10000.stats" vmstep)
	ok "GET $path: at 10 times the versions, less than 2 times the work ($a, $b)" \
		within 2 "$a" "$b"
	a=$(stat "$TMP/web${name}1000.stats" fullscan)
	b=$(stat "$TMP/web${name}10000.stats" fullscan)
	ok "GET $path: no table read whole: rows of full scans $a, $b" within 2 "$a" "$b"
done
done_testing

#!/bin/sh
# The plans SQLite chooses for the statements of a poll and of the pages
# that read what it stored, as they would be at 1,000,000 messages: no
# statement reads a table that grows with the archive whole, nor walks
# every live version, but the few named (with why) in check-plans.py.
#
# LOREBOT_DB_PLANS makes every connection write EXPLAIN QUERY PLAN of each
# statement it prepares.  The statements: a poll from an mbox (bench/
# poll.sh's), by search and by git from a local lore (the fetch path:
# storing, incremental assembly, the series that reparse and the lists'
# state), the daemon's start and poll with --once, and the dashboard's
# pages, filters, API and /metrics, on bench/gen-archive.py's 1,000
# messages.  The planner knows sizes only from sqlite_stat1, so each runs
# three times: without statistics (a database lorebot made: it writes
# none until a migration's PRAGMA optimize), and with those an archive of
# 1,000,000 messages has (t0954-query-plans/stat1-1m-*.txt, bench/poll.sh's
# archive: `PRAGMA analysis_limit = 400; ANALYZE`, as PRAGMA optimize
# would write them, and a full ANALYZE).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
D=$LOREBOT_SRC/tests/t0954-query-plans

"$PY" "$LOREBOT_SRC/bench/gen-archive.py" 1000 "$TMP/a.mbox" "$TMP/news.mbox" 2>/dev/null
lorebot --db "$TMP/a.db" fetch --mbox /dev/null >/dev/null 2>&1
sqlite3 "$TMP/a.db" "INSERT INTO lists (name, url) VALUES ('linux-mm', 'http://127.0.0.1/linux-mm/')"
lorebot --db "$TMP/a.db" fetch --mbox "$TMP/a.mbox" --list linux-mm >/dev/null 2>&1
is "$?" 0 "the archive of 1,000 messages imported"
is "$(sqlite3 "$TMP/a.db" "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")" 0 \
	"lorebot left no planner statistics"
lab_setup "$TMP/news.mbox"
git init -q --bare "$TMP/repo.git"
printf '[lore]\n\tminpoll = 0\n\tindexlag = 0\n\tretries = 0\n[daemon]\n\tmaxage = 1d\n' >"$TMP/conf"

# stats DB NAME: the planner statistics NAME in DB (none: none)
stats() {
	"$PY" - "$1" "$2" "$D" <<'PY'
import sqlite3, sys
db, name, d = sys.argv[1:]
c = sqlite3.connect(db)
if name != "none":
    c.execute("ANALYZE sqlite_schema")
    c.execute("DELETE FROM sqlite_stat1")
    for line in open(f"{d}/stat1-1m-{name}.txt"):
        tbl, idx, stat = line.rstrip("\n").split("|")
        c.execute("INSERT INTO sqlite_stat1 VALUES (?, ?, ?)", (tbl, idx or None, stat))
    c.commit()
PY
}

# fresh NAME: a copy of the archive with the statistics NAME, as $DB
fresh() {
	DB=$TMP/p.db
	rm -f "$DB" "$DB-wal" "$DB-shm"
	cp "$TMP/a.db" "$DB"
	stats "$DB" "$1"
}

for st in none limit400 full; do
	P=$TMP/plans-$st
	: >"$P"
	export LOREBOT_DB_PLANS=$P
	fresh "$st"
	lorebot --db "$DB" fetch --mbox "$TMP/news.mbox" --list linux-mm >"$TMP/out" 2>&1
	like "$(head -1 "$TMP/out")" "10 new messages" "$st: the poll from an mbox stored the news"
	for m in search git; do
		fresh "$st"
		lorebot --config "$TMP/conf" --db "$DB" fetch --url "$URL" --method "$m" \
			--list linux-mm >"$TMP/out" 2>&1
		like "$(head -1 "$TMP/out")" "10 new messages" "$st: the poll by $m stored the news"
	done
	fresh "$st"
	# a first start derives every version's state for its arches (once,
	# as after a change of the arches): not measured
	unset LOREBOT_DB_PLANS
	lorebot --config "$TMP/conf" --db "$DB" daemon --url "http://127.0.0.1:$(free_port)/x/" \
		--repo "$TMP/repo.git" --arch '' --once >"$TMP/out" 2>&1
	LOREBOT_DB_PLANS=$P
	export LOREBOT_DB_PLANS
	lorebot --config "$TMP/conf" --db "$DB" daemon --url "$URL" --repo "$TMP/repo.git" \
		--arch '' --once >"$TMP/out" 2>&1
	is "$?" 0 "$st: the daemon polled once"
	unset LOREBOT_DB_PLANS
	is "$(sqlite3 "$DB" "SELECT count(*) FROM messages")" 1015 "$st: and stored the news"
	LOREBOT_DB_PLANS=$P
	export LOREBOT_DB_PLANS
	serve_start
	sid=$(sqlite3 "$DB" "SELECT series FROM versions ORDER BY date DESC LIMIT 1")
	vid=$(sqlite3 "$DB" "SELECT id FROM versions ORDER BY date DESC LIMIT 1")
	: >"$TMP/codes"
	for u in / "/?limit=50" "/?state=new" "/?state=build-failed" "/?author=dev1" \
		"/?q=improve" "/?q=improve&state=new" "/series/$sid" /api/series \
		"/api/series?limit=20&author=dev2" "/api/series?state=new" "/api/series/$vid" \
		/metrics /queue /healthz; do
		curl -s -o /dev/null -w "%{http_code} $u\n" "$WEB$u" >>"$TMP/codes"
	done
	serve_stop
	unset LOREBOT_DB_PLANS
	is "$(grep -vc '^200 ' "$TMP/codes")" 0 "$st: every page answered"
	grep -v '^200 ' "$TMP/codes" | while read -r l; do diag "$l"; done
	"$PY" "$D/check-plans.py" "$P" >"$TMP/check-$st"
	is "$?" 0 "$st: of $(grep -c '^' "$TMP/check-$st") statements, none reads a growing table whole or walks the live versions"
	grep '^BAD' "$TMP/check-$st" | while read -r l; do diag "$l"; done
	# the statements the issue named are among them
	like "$(cat "$TMP/check-$st")" "ok UPDATE versions SET gone = 1, .* temp.touched" \
		"$st: mark_gone() of the touched versions was seen"
	like "$(cat "$TMP/check-$st")" "ok SELECT id FROM messages INDEXED BY messages_meta_version" \
		"$st: the search for messages to parse again was seen"
	like "$(cat "$TMP/check-$st")" "ok SELECT id FROM versions INDEXED BY versions_live" \
		"$st: the dashboard's list was seen"
	like "$(cat "$TMP/check-$st")" "ok SELECT .* FROM jobs" "$st: /metrics' jobs were seen"
done
diag "statements checked: $(cat "$TMP"/check-* | sort -u | wc -l)"
done_testing

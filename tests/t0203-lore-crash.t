#!/bin/sh
# kill -9 of lorebot fetch in the middle of an import, then a rerun: the
# database passes PRAGMA integrity_check and holds each message once
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

lab_setup
proxy_start
lore_conf lore.batch=5
consistent() {
	is "$(sql 'PRAGMA integrity_check')" ok "$1: integrity_check"
	# killed before the first migration: an empty database is fine too
	if [ "$(sql "SELECT count(*) FROM sqlite_master WHERE name = 'messages'")" = 1 ]; then
		is "$(sql 'SELECT count(*) = count(DISTINCT msgid) FROM messages')" 1 \
			"$1: no message twice"
	else
		is "$(sql "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'schema_version%'
			AND name NOT LIKE 'sqlite_%'")" 0 "$1: no half-made schema"
	fi
	is "$(sql 'PRAGMA foreign_key_check')" "" "$1: foreign keys hold"
}

# A: windows of 5 messages, each answer slowed down; killed once some
# windows are in
faults '[{"match": "x=m", "action": "slow:0.3", "times": -1}]'
"$LOREBOT" --config "$CONF" --db "$DB" fetch --url "$PURL" >"$TMP/a.out" 2>&1 &
pid=$!
i=0
while [ "$(sqlite3 "$DB" 'SELECT count(*) FROM messages' 2>/dev/null || echo 0)" -lt 10 ]; do
	i=$((i + 1))
	[ $i -lt 600 ] || break
	sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null
had=$(sql 'SELECT count(*) FROM messages')
is "$(test "$had" -ge 10 && test "$had" -lt 57 && echo yes)" yes \
	"killed in the middle of the import ($had of 57 messages stored)"
consistent "after kill -9"
is "$(sql 'SELECT cursor IS NOT NULL FROM lists')" 1 "the cursor of the windows stored is kept"
faults '[]'
lorebot --config "$CONF" --db "$DB" fetch --url "$PURL" --json >"$TMP/a.json" 2>"$TMP/a.err"
is "$?" 0 "the rerun exits 0"
is "$(json "$TMP/a.json" "d['lists'][0]['new'] + $had")" 57 "it fetches only the rest"
is "$(sql 'SELECT count(*) FROM messages')" 57 "57 messages in the end"
consistent "after the rerun"

# B: kills at different moments of a fast import (some inside a
# transaction, some outside), each followed by the checks
for d in 0.05 0.1 0.15 0.2 0.3; do
	rm -f "$DB"*
	"$LOREBOT" --config "$CONF" --db "$DB" fetch --url "$URL" >/dev/null 2>&1 &
	pid=$!
	sleep $d
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	[ -f "$DB" ] || continue
	consistent "killed after ${d}s"
	# lore.maxbatches windows per pass: as many passes as it takes
	for pass in 1 2 3; do
		lorebot --config "$CONF" --db "$DB" fetch --url "$URL" --force >"$TMP/b.out" 2>&1
		grep -q "more to fetch" "$TMP/b.out" || break
	done
	is "$(sql 'SELECT count(*), count(DISTINCT msgid) FROM messages')" "57|57" \
		"killed after ${d}s, then rerun: 57 messages once"
done
done_testing

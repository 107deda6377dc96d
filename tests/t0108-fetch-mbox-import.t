#!/bin/sh
# A local archive imported with fetch --mbox is committed a piece at a
# time (--commit-every, 4 MB here; 64 MB by default): a kill keeps what
# was committed, pending
# assembly, and the next import stores the rest and leaves the tables
# one import leaves.  Its text output lists a few versions and counts
# the rest exactly, without holding a change of every version.  Into a
# database that exists, an archive is assembled in full, a poll's news
# incrementally.
# schedule: middle 3.7 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"

# a value of the database
q() {
	"$PY" -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2" 2>/dev/null
}

# 4,400 messages, 12 MB: three commits of 4 MB
total=$("$PY" "$LOREBOT_SRC/bench/gen-archive.py" 4400 "$TMP/a.mbox" "$TMP/news.mbox" 2>&1 >/dev/null |
	sed -n 's/^\([0-9]*\) messages in .*/\1/p')
ok "the archive is more than two commits' worth of mail" \
	test "$(stat -c %s "$TMP/a.mbox")" -gt $((8 << 20))
C="--commit-every 4m"

# in one import
lorebot --db "$TMP/once.db" fetch $C --mbox "$TMP/a.mbox" >"$TMP/once.out" 2>"$TMP/once.err"
is "$?" 0 "one import: stored"
like "$(head -n 1 "$TMP/once.out")" "mbox: $total new messages, 0 known" "one import: every message new"
versions=$(q "$TMP/once.db" "SELECT count(*) FROM versions WHERE gone = 0")
listed=$(grep -c '^  new ' "$TMP/once.out")
more=$(sed -n 's/^  \.\.\. and \([0-9]*\) more (--json lists them all)$/\1/p' "$TMP/once.out")
is "$listed" 50 "one import: 50 versions listed"
is "$((listed + ${more:-0}))" "$versions" "one import: and the rest counted, exactly ($versions)"
is "$(q "$TMP/once.db" "SELECT count(*) FROM series_pending")" 0 "one import: nothing left pending"

# killed after its first commit
"$LOREBOT" --db "$TMP/kill.db" fetch $C --mbox "$TMP/a.mbox" >/dev/null 2>&1 &
pid=$!
stored=0
i=0
while [ "$i" -lt 3000 ] && kill -0 "$pid" 2>/dev/null; do
	stored=$(q "$TMP/kill.db" "SELECT count(*) FROM messages")
	[ "${stored:-0}" -gt 0 ] && break
	sleep 0.1
	i=$((i + 1))
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
stored=$(q "$TMP/kill.db" "SELECT count(*) FROM messages")
ok "killed: what was committed is stored ($stored messages)" \
	test "${stored:-0}" -gt 0 -a "${stored:-0}" -lt "$total"
is "$(q "$TMP/kill.db" "PRAGMA integrity_check")" ok "killed: the database is whole"
is "$(q "$TMP/kill.db" "SELECT count(*) FROM series_pending")" "$stored" \
	"killed: every stored message pending assembly"

# the same import again: the rest, and the tables of one import
lorebot --db "$TMP/kill.db" fetch $C --mbox "$TMP/a.mbox" >"$TMP/again.out" 2>"$TMP/again.err"
is "$?" 0 "again: stored"
like "$(head -n 1 "$TMP/again.out")" "mbox: $((total - stored)) new messages, $stored known" \
	"again: only the rest is new"
is "$(q "$TMP/kill.db" "SELECT count(*) FROM series_pending")" 0 "again: nothing left pending"
"$PY" "$LOREBOT_SRC/tests/series-dump.py" "$TMP/once.db" live >"$TMP/once.live"
"$PY" "$LOREBOT_SRC/tests/series-dump.py" "$TMP/kill.db" live >"$TMP/kill.live"
if cmp -s "$TMP/once.live" "$TMP/kill.live"; then
	ok "again: the tables of one import" true
else
	ok "again: the tables of one import" false
	diff "$TMP/once.live" "$TMP/kill.live" | head -20 | cut -c1-200 | sed 's/^/# /'
fi

# into a database that exists (an empty import made it, and assembled
# it: nothing asks for a full assembly any more): an archive is big news,
# assembled in full, within series.memory, not as a closure held in memory
lorebot --db "$TMP/exists.db" fetch $C --mbox /dev/null >/dev/null 2>&1
lorebot --db "$TMP/exists.db" -v fetch $C --mbox "$TMP/a.mbox" >/dev/null 2>"$TMP/exists.err"
is "$?" 0 "into a database that exists: stored"
like "$(cat "$TMP/exists.err")" "series: every message assembled again" \
	"into a database that exists: the archive assembled in full"
"$PY" "$LOREBOT_SRC/tests/series-dump.py" "$TMP/exists.db" live >"$TMP/exists.live"
ok "into a database that exists: the tables of one import" \
	cmp -s "$TMP/once.live" "$TMP/exists.live"
# and a poll's news on it is assembled incrementally
lorebot --db "$TMP/exists.db" -v fetch $C --mbox "$TMP/news.mbox" >/dev/null 2>"$TMP/news.err"
is "$?" 0 "news: stored"
like "$(cat "$TMP/news.err")" "series: [0-9]+ messages assembled again, [0-9]+ of them new" \
	"news: assembled incrementally"
unlike "$(cat "$TMP/news.err")" "every message assembled again" "news: not in full"

done_testing

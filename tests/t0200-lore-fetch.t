#!/bin/sh
# lorebot fetch against a real public-inbox-httpd serving the fixture threads
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

lab_setup
L=$FIXTURES/lore
cat "$L"/*.mbox >"$TMP/all.mbox"

# the first fetch: no configuration file, only --db and --url
lorebot --db "$DB" fetch --url "$URL" --json >"$TMP/f1.json" 2>"$TMP/f1.err"
is "$?" 0 "first fetch exits 0"
is "$(json "$TMP/f1.json" "d['lists'][0]['status']")" ok "first fetch caught up"
is "$(json "$TMP/f1.json" "d['lists'][0]['new']")" 57 "57 new messages"
is "$(json "$TMP/f1.json" "(d['lists'][0]['duplicates'], d['lists'][0]['variants'])")" \
	"(0, 0)" "no duplicates, no variants"
is "$(json "$TMP/f1.json" "d['lists'][0]['name']")" linux-mm "the list is named after the URL"
is "$(json "$TMP/f1.json" "sorted(v['change'] for v in d['versions'])")" \
	"['new', 'new', 'new', 'new']" "four new series versions reported"
is "$(sql 'SELECT count(*), count(DISTINCT msgid) FROM messages')" "57|57" \
	"each fixture message stored once"
is "$(sql "SELECT count(*) FROM list_messages JOIN lists ON lists.id = list
	WHERE lists.name = 'linux-mm'")" 57 "every message linked to the list"
is "$(sql 'PRAGMA integrity_check')" ok "integrity_check"
is "$(sql 'PRAGMA journal_mode')" wal "the database is in WAL mode"
is "$(sql 'SELECT count(*) FROM schema_version')" \
	"$(sqlite3 "$DB" 'SELECT count(*) FROM schema_version')" "schema_version recorded"

# the series in the database are those of series --mbox
lorebot --db "$DB" series --json >"$TMP/db.json"
is "$?" 0 "series from the database exits 0"
lorebot series --mbox "$TMP/all.mbox" --json >"$TMP/mbox.json" 2>/dev/null
is "$(python3 -c "import json,sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
print(a['series'] == b['series'], a['messages'] == b['messages'])" "$TMP/db.json" "$TMP/mbox.json")" \
	"True True" "series --json from the database equals series --mbox"
is "$(json "$TMP/db.json" "len(d['series'])")" 4 "four versions"
lorebot --db "$DB" series >"$TMP/db.txt"
lorebot series --mbox "$TMP/all.mbox" >"$TMP/mbox.txt" 2>/dev/null
ok "the text form is the same too" cmp "$TMP/db.txt" "$TMP/mbox.txt"
for t in 000_73a05b4700ab1a7a 003_6100bb5053417aef 004_476fa21b8430df59; do
	lorebot series --mbox "$L/$t.mbox" --json >"$TMP/$t.json" 2>/dev/null
	is "$(python3 -c "import json,sys
a = json.load(open(sys.argv[1]))['series']; b = json.load(open(sys.argv[2]))['series']
print(all(s in a for s in b))" "$TMP/db.json" "$TMP/$t.json")" True \
		"$t: its series are in the database unchanged"
done

# persisted: versions, patches, trailers
is "$(sql "SELECT version, total, have, complete FROM versions
	WHERE id = '20250115033807.46664-1-21cnbao@gmail.com'")" "3|4|4|1" "004: version row"
is "$(sql "SELECT msgid FROM patches WHERE version = '20250115033807.46664-1-21cnbao@gmail.com'
	ORDER BY n" | tr '\n' ' ')" \
	"20250115033807.46664-2-21cnbao@gmail.com 20250115033807.46664-3-21cnbao@gmail.com 20250115033807.46664-4-21cnbao@gmail.com 20250115033807.46664-5-21cnbao@gmail.com " \
	"004: patch rows in order"
is "$(sql "SELECT value FROM trailers WHERE version = '20250115033807.46664-1-21cnbao@gmail.com'
	AND n = 2 AND name = 'Acked-by'")" "Will Deacon <will@kernel.org>" "004 2/4: trailer row"
is "$(sql "SELECT superseded_by FROM versions WHERE id = '20260207081144.588545-1-vernon2gm@gmail.com'")" \
	20260207081613.588598-1-vernon2gm@gmail.com "003: the first send is superseded"
is "$(sql "SELECT count(*) FROM patches WHERE message IS NULL")" 0 \
	"every patch row points at its stored message"

# raw messages exactly as received: the bytes public-inbox serves
M=20260207081613.588598-3-vernon2gm@gmail.com
# /raw is mboxrd: a "From " line, and ">From " quoting in the body
curl -s "${URL}$M/raw" | sed -E '1d; s/^>(>*From )/\1/' >"$TMP/served"
lorebot --db "$DB" show --raw "$M" >"$TMP/stored"
printf '\n' >>"$TMP/stored"	# public-inbox ends each message with a blank line
ok "show --raw gives the bytes served by /raw" cmp "$TMP/served" "$TMP/stored"
git mailsplit --mboxrd -o"$TMP" "$L/003_6100bb5053417aef.mbox" >/dev/null
sed 1d "$(grep -l "^Message-ID: <$M>" "$TMP"/0*)" >"$TMP/fixture"
ok "and the bytes of the fixture" cmp "$TMP/fixture" "$TMP/stored"

# show
lorebot --db "$DB" show --json "<$M>" >"$TMP/show.json"
is "$?" 0 "show <msgid> exits 0"
is "$(json "$TMP/show.json" "(d['message']['in'][0]['n'], d['message']['in'][0]['series_id'] != '')")" \
	"(2, True)" "show: the message is patch 2 of a version"
is "$(json "$TMP/show.json" "d['version']")" None "show: a patch is not a version id"
V=20260207081613.588598-1-vernon2gm@gmail.com
lorebot --db "$DB" show --json "$V" >"$TMP/showv.json"
is "$(json "$TMP/showv.json" "(d['version']['version'], d['version']['complete'])")" \
	"(7, True)" "show <version id> includes the version"
SID=$(json "$TMP/showv.json" "d['version']['series_id']")
lorebot --db "$DB" show --json "$SID" >"$TMP/shows.json"
is "$(json "$TMP/shows.json" "[v['id'] for v in d['series']['versions']]")" \
	"['20260207081144.588545-1-vernon2gm@gmail.com', '20260207081613.588598-1-vernon2gm@gmail.com']" \
	"show <series id> lists both sends of the series"
out=$(lorebot --db "$DB" show "$SID")
like "$out" "v7 \[mm-new\] Improve khugepaged scan logic" "show <series id>: text"
lorebot --db "$DB" show nosuch@example.org >/dev/null 2>"$TMP/err"
is "$?" 2 "show of an unknown id exits 2"
like "$(cat "$TMP/err")" "no message or series 'nosuch@example.org'" "and says so"

# politeness: lore.minpoll (60 s by default) keeps a second fetch away
n0=$(requests)
lorebot --db "$DB" fetch --url "$URL" >"$TMP/f2.out" 2>&1
is "$?" 0 "a second fetch right away exits 0"
like "$(cat "$TMP/f2.out")" "not due; next poll in [0-9]+ s" "it is not due (lore.minpoll)"
is "$(requests)" "$n0" "and sends no request at all"

# nothing new: only the cheap probe goes out
lore_conf
lorebot --config "$CONF" --db "$DB" fetch --url "$URL" --json >"$TMP/f3.json"
is "$(json "$TMP/f3.json" "d['lists'][0]['status']")" unchanged "nothing new: unchanged"
is "$(json "$TMP/f3.json" "d['lists'][0]['requests']")" 1 "one request"
like "$(sed -n "$((n0 + 1)),\$p" "$ACCESS")" '^[^"]*"GET /linux-mm/manifest.js.gz HTTP/1.1" 200 [0-9]+$' \
	"the access log has only the manifest request"
is "$(json "$TMP/f3.json" "d['lists'][0]['bytes_in'] < 10240")" True "under 10 KB"
is "$(sql 'SELECT count(*) FROM messages')" 57 "nothing added"

# parsed forms are kept across builds while the parser is the same
stamp=$(sql 'SELECT DISTINCT meta_version FROM messages')
like "$stamp" '^parse [0-9]+, GMime [0-9.]+$' "every message stamped with the parser, not the build"
lorebot --db "$DB" series --json >"$TMP/s1.json"
subject=$(sql 'SELECT subject FROM messages WHERE id = (SELECT min(id) FROM messages)')
sql "UPDATE messages SET subject = 'not parsed again' WHERE id = (SELECT min(id) FROM messages)"
lorebot --config "$CONF" --db "$DB" db rebuild >/dev/null 2>&1
is "$(sql 'SELECT subject FROM messages WHERE id = (SELECT min(id) FROM messages)')" \
	"not parsed again" "a full assembly by the same parser parses nothing again"
# an older parser's forms (and a failure by another build) are parsed again, in the jail
sql "UPDATE messages SET meta_version = 'parse 0, GMime 0.0.0', meta = '{}'" >/dev/null
sql "UPDATE messages SET meta_version = 'failed 0123abc', meta = NULL, error = 'died'
	WHERE id = (SELECT min(id) FROM messages)" >/dev/null
lorebot --config "$CONF" --db "$DB" db rebuild >/dev/null 2>"$TMP/err"
is "$?" 0 "db rebuild after a parser change"
is "$(sql "SELECT count(*), count(meta), count(error) FROM messages WHERE meta_version = '$stamp'")" \
	"57|57|0" "every message parsed again by this parser"
is "$(sql 'SELECT subject FROM messages WHERE id = (SELECT min(id) FROM messages)')" \
	"$subject" "its parsed columns with it"
lorebot --db "$DB" series --json >"$TMP/s2.json"
is "$(json "$TMP/s1.json" "d['series']" )" "$(json "$TMP/s2.json" "d['series']")" \
	"and the series are what they were"
# past series.memory (here from the first message on), the store's
# assembly lives in a scratch file as series --mbox's does
gens=$(sql 'SELECT sum(generation) FROM versions')
lore_conf series.memory=1
mkdir "$TMP/scratch"
TMPDIR=$TMP/scratch lorebot --config "$CONF" --db "$DB" -v db rebuild >/dev/null 2>"$TMP/err"
is "$?" 0 "db rebuild past series.memory"
like "$(cat "$TMP/err")" "series: more than 1 bytes of messages after 1; assembling in a scratch file" \
	"assembled in a scratch file"
is "$(ls -A "$TMP/scratch")" "" "which is gone after"
lorebot --db "$DB" series --json >"$TMP/s3.json"
is "$(json "$TMP/s1.json" "d['series']" )" "$(json "$TMP/s3.json" "d['series']")" \
	"the same series"
is "$(sql 'SELECT sum(generation) FROM versions')" "$gens" "and no version changed"

# lists from the configuration
lore_conf "list.mm.url=$URL" "list.off.url=$URL" list.off.enabled=false
lorebot --config "$CONF" --db "$TMP/c.db" fetch --json >"$TMP/c.json"
is "$?" 0 "fetch of the configured lists exits 0"
is "$(json "$TMP/c.json" "[(l['name'], l['new']) for l in d['lists']]")" "[('mm', 57)]" \
	"the enabled list is fetched under its name, the disabled one is not"
lore_conf "list.mm.url=$URL" list.mm.since=someday
lorebot --config "$CONF" --db "$TMP/c.db" fetch >/dev/null 2>"$TMP/err"
is "$?" 2 "a bad list.mm.since is a usage error"
like "$(cat "$TMP/err")" "list.mm.since: bad value 'someday'" "naming the key"

# usage errors
fails "fetch without a list" lorebot --db "$DB" fetch
fails "fetch with a bad URL" lorebot --db "$DB" fetch --url ftp://example.org/x/
fails "fetch --since nonsense" lorebot --db "$DB" fetch --url "$URL" --since yesterday-ish
lorebot --db "$TMP/none.db" series >/dev/null 2>"$TMP/err"
is "$?" 2 "series from a missing database exits 2"
done_testing

#!/bin/sh
# lorebot fetch --method git: following the inbox's git epochs
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

lab_setup
proxy_start
lore_conf
fetch() {
	lorebot --config "$CONF" --db "$DB" fetch --url "$URL" --method git --json "$@"
}
cat "$FIXTURES"/lore/*.mbox >"$TMP/all.mbox"

fetch >"$TMP/f1.json" 2>"$TMP/f1.err"
is "$?" 0 "the first fetch through git exits 0"
is "$(json "$TMP/f1.json" "(d['lists'][0]['status'], d['lists'][0]['new'])")" "('ok', 57)" \
	"57 new messages"
is "$(sql 'SELECT count(*), count(DISTINCT msgid) FROM messages')" "57|57" "each stored once"
ok "the epoch is mirrored next to the database" test -f "$DB.lore/linux-mm/0.git/HEAD"
is "$(sql 'SELECT epoch, length(fingerprint), length(head) FROM lore_epochs')" "0|40|40" \
	"the epoch's fingerprint and last commit are stored"
lorebot --db "$DB" series --json >"$TMP/db.json"
lorebot series --mbox "$TMP/all.mbox" --json >"$TMP/mbox.json" 2>/dev/null
is "$(python3 -c "import json,sys
print(json.load(open(sys.argv[1]))['series'] == json.load(open(sys.argv[2]))['series'])" \
	"$TMP/db.json" "$TMP/mbox.json")" True "the series are those of series --mbox"
# the same bytes as the search method stores
lorebot --config "$CONF" --db "$TMP/s.db" fetch --url "$URL" >/dev/null
is "$(sql 'SELECT group_concat(hash) FROM (SELECT hash FROM messages ORDER BY msgid)')" \
	"$(sqlite3 "$TMP/s.db" 'SELECT group_concat(hash) FROM (SELECT hash FROM messages ORDER BY msgid)')" \
	"git blobs and HTTP searches give the same raw messages"

n0=$(requests)
fetch >"$TMP/f2.json"
is "$(json "$TMP/f2.json" "(d['lists'][0]['status'], d['lists'][0]['requests'])")" "('unchanged', 1)" \
	"nothing new: unchanged, one request"
like "$(sed -n "$((n0 + 1)),\$p" "$ACCESS")" '^[^"]*"GET /linux-mm/manifest.js.gz HTTP/1.1" 200 [0-9]+$' \
	"no git traffic when the probe says nothing changed"

# a delivery the search index does not show yet is found at once: no index
STAMP=$(date -u +%Y%m%d%H%M%S)
cat >"$TMP/new.eml" <<EOF
From: Erin Mm <erin@example.org>
To: linux-mm@kvack.org
Subject: [PATCH] mm: straight from git
Date: $(date -u -R)
Message-ID: <$STAMP.git@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8

Straight from git.

Signed-off-by: Erin Mm <erin@example.org>
---
diff --git a/mm/x.c b/mm/x.c
--- a/mm/x.c
+++ b/mm/x.c
@@ -1 +1,2 @@
 a
+b
EOF
"$LORE_LAB" deliver --lag "$LAB" <"$TMP/new.eml"
fetch >"$TMP/f3.json"
is "$(json "$TMP/f3.json" "(d['lists'][0]['new'], [v['id'] for v in d['versions']])")" \
	"(1, ['$STAMP.git@example.org'])" "a new message is found by the next fetch, index lag or not"
fetch >"$TMP/f4.json"
is "$(json "$TMP/f4.json" "d['lists'][0]['status']")" unchanged \
	"and then the list is unchanged at once (no lore.indexlag wait)"

# resuming from the last commit stored: two batches per pass
rm -rf "$DB"*
lore_conf lore.batch=10
fetch --batches 2 >"$TMP/b1.json"
is "$(json "$TMP/b1.json" "(d['lists'][0]['status'], d['lists'][0]['new'])")" "('more', 20)" \
	"--batches 2: 20 messages, more to come"
fetch --batches 100 >"$TMP/b2.json"
is "$(json "$TMP/b2.json" "(d['lists'][0]['status'], d['lists'][0]['new'], d['lists'][0]['duplicates'])")" \
	"('ok', 38, 0)" "the next pass continues after the last commit stored"

# faults: a failing server is retried; a stopped one fails the pass
rm -rf "$DB"*
lore_conf
faults '[{"match": "info/refs", "action": "status:500", "times": 1}]'
lorebot --config "$CONF" --db "$DB" fetch --url "$PURL" --method git --json >"$TMP/p.json" 2>"$TMP/p.err"
is "$?" 0 "HTTP 500 once on the git fetch: retried"
like "$(cat "$TMP/p.err")" "git fetch.*retry 1/2" "the retry is reported"
is "$(json "$TMP/p.json" "d['lists'][0]['new']")" 58 "all messages"
"$LORE_LAB" stop "$LAB"
sed "s/$STAMP.git@/$STAMP.git2@/; s/straight from git/while it was down/" "$TMP/new.eml" |
	"$LORE_LAB" deliver "$LAB"
lorebot --config "$CONF" --db "$DB" fetch --url "$URL" --method git --force >/dev/null 2>"$TMP/e.err"
is "$?" 3 "the server stopped: exit 3"
"$LORE_LAB" start "$LAB" >/dev/null 2>&1
lorebot --config "$CONF" --db "$DB" fetch --url "$URL" --method git --force --json >"$TMP/r.json"
is "$(json "$TMP/r.json" "(d['lists'][0]['status'], d['lists'][0]['new'])")" "('ok', 1)" \
	"back up: the next pass brings what is new"
is "$(sql 'SELECT count(*), count(DISTINCT msgid) FROM messages')" "59|59" "nothing lost, nothing twice"

# kill -9 at different moments, then a rerun
for d in 0.1 0.2 0.4; do
	rm -rf "$DB"*
	"$LOREBOT" --config "$CONF" --db "$DB" fetch --url "$URL" --method git >/dev/null 2>&1 &
	pid=$!
	sleep $d
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	lorebot --config "$CONF" --db "$DB" fetch --url "$URL" --method git --force >/dev/null 2>&1
	is "$(sql 'PRAGMA integrity_check'; sql 'SELECT count(*), count(DISTINCT msgid) FROM messages')" \
		"ok
59|59" "killed after ${d}s and rerun: intact, each message once"
done

# a kill during git init left a directory that is no repository (and
# the one being made): made again, not failed on at every pass
rm -rf "$DB"*
mkdir -p "$DB.lore/linux-mm/0.git/objects" "$DB.lore/linux-mm/0.git.new/refs"
lorebot --config "$CONF" --db "$DB" fetch --url "$URL" --method git --force >/dev/null \
	2>"$TMP/broken.err"
is "$?" 0 "an epoch a killed git init left: made again"
is "$(sql 'SELECT count(*), count(DISTINCT msgid) FROM messages')" "59|59" \
	"and every message fetched"
ok "nothing left aside" test ! -e "$DB.lore/linux-mm/0.git.new"

fails "a query needs method search" lorebot --db "$DB" fetch --url "$URL" --method git --query s:x
fails "an unknown method" lorebot --db "$DB" fetch --url "$URL" --method ftp
done_testing

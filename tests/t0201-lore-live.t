#!/bin/sh
# Following a live inbox: new series, later reviews, reused Message-IDs,
# the search index lagging behind, threads, single messages, queries
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

lab_setup
lore_conf
fetch() {
	lorebot --config "$CONF" --db "$DB" fetch --url "$URL" --json "$@"
}
fetch >"$TMP/f0.json" 2>"$TMP/f0.err"
is "$(json "$TMP/f0.json" "d['lists'][0]['new']")" 57 "the fixtures are fetched"

NOW=$(date -u -R)
STAMP=$(date -u +%Y%m%d%H%M%S)
C=$STAMP.5555-1-carol@example.com
P1=$STAMP.5555-2-carol@example.com
P2=$STAMP.5555-3-carol@example.com

# msg FILE MSGID SUBJECT [PARENT [BODY]]
msg() {
	{
		printf 'From: Carol Kern <carol@example.com>\nTo: linux-mm@kvack.org\n'
		printf 'Subject: %s\nDate: %s\nMessage-ID: <%s>\n' "$3" "$NOW" "$2"
		[ -z "${4:-}" ] || printf 'In-Reply-To: <%s>\nReferences: <%s>\n' "$4" "$4"
		printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n'
		printf '%s\n' "${5:-Cover text.}"
	} >"$1"
}
patch_body() {
	printf '%s\n\nSigned-off-by: Carol Kern <carol@example.com>\n---\n' "$1"
	printf ' mm/slab.c | 1 +\n 1 file changed, 1 insertion(+)\n\n'
	printf 'diff --git a/mm/slab.c b/mm/slab.c\nindex 1111111..2222222 100644\n'
	printf -- '--- a/mm/slab.c\n+++ b/mm/slab.c\n@@ -1,2 +1,3 @@\n int x;\n+int %s;\n int y;\n-- \n2.39.5\n' "$2"
}
msg "$TMP/c.eml" "$C" "[PATCH 0/2] mm/slab: zero-size and gfp fixes"
msg "$TMP/p1.eml" "$P1" "[PATCH 1/2] mm/slab: reject zero-size caches" "$C" \
	"$(patch_body 'Reject zero-size caches.' a)"
msg "$TMP/p2.eml" "$P2" "[PATCH 2/2] mm/slab: check gfp flags" "$C" \
	"$(patch_body 'Check the gfp flags.' b)"
for m in c p1 p2; do
	"$LORE_LAB" deliver "$LAB" <"$TMP/$m.eml" || echo "Bail out! deliver $m"
done

fetch >"$TMP/f1.json"
is "$?" 0 "fetch after a live delivery exits 0"
is "$(json "$TMP/f1.json" "d['lists'][0]['new']")" 3 "the new series is found: 3 new messages"
is "$(json "$TMP/f1.json" "[(v['change'], v['id'], v['have'], v['total']) for v in d['versions']]")" \
	"[('new', '$C', 2, 2)]" "one new version, complete"
is "$(sql 'SELECT count(*), count(DISTINCT msgid) FROM messages')" "60|60" "60 messages, once each"

n0=$(requests)
fetch >"$TMP/f2.json"
is "$(json "$TMP/f2.json" "(d['lists'][0]['status'], d['lists'][0]['requests'], d['versions'])")" \
	"('unchanged', 1, [])" "a second fetch with nothing new: unchanged, one request"
like "$(sed -n "$((n0 + 1)),\$p" "$ACCESS")" '^[^"]*"GET /linux-mm/manifest.js.gz HTTP/1.1" 200 [0-9]+$' \
	"only the cheap probe reached the server"

# a review arrives later: its trailer lands on the patch it reviews
R=$STAMP.review@example.org
{
	printf 'From: Dave Reviewer <dave@example.org>\nTo: linux-mm@kvack.org\n'
	printf 'Subject: Re: [PATCH 1/2] mm/slab: reject zero-size caches\n'
	printf 'Date: %s\nMessage-ID: <%s>\nIn-Reply-To: <%s>\nReferences: <%s> <%s>\n' \
		"$NOW" "$R" "$P1" "$C" "$P1"
	printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n'
	printf '> Reject zero-size caches.\n\nLooks right.\n\nReviewed-by: Dave Reviewer <dave@example.org>\n'
} >"$TMP/r.eml"
"$LORE_LAB" deliver "$LAB" <"$TMP/r.eml"
fetch >"$TMP/f3.json"
is "$(json "$TMP/f3.json" "[(v['change'], v['id']) for v in d['versions']]")" \
	"[('updated', '$C')]" "the version is reported as updated"
is "$(sql "SELECT name || ': ' || value FROM trailers WHERE version = '$C' AND n = 1
	AND name = 'Reviewed-by'")" "Reviewed-by: Dave Reviewer <dave@example.org>" \
	"patch 1 now has the Reviewed-by"
is "$(sql "SELECT count(*) FROM trailers WHERE version = '$C' AND n = 2 AND name = 'Reviewed-by'")" \
	0 "patch 2 has none"
is "$(sql "SELECT generation FROM versions WHERE id = '$C'")" 2 "its generation went up"
lorebot --db "$DB" series --json >"$TMP/s.json"
is "$(json "$TMP/s.json" "[t['value'] for s in d['series'] if s['id'] == '$C' for t in s['patches'][0]['trailers'] if t['name'] == 'Reviewed-by']")" \
	"['Dave Reviewer <dave@example.org>']" "series --json shows it"

# the same Message-ID with other content: public-inbox keeps both, so do we
sed 's/Looks right./Looks right, with one nit./' "$TMP/r.eml" >"$TMP/r2.eml"
"$LORE_LAB" deliver "$LAB" <"$TMP/r2.eml" 2>/dev/null
fetch >"$TMP/f4.json"
is "$(json "$TMP/f4.json" "(d['lists'][0]['new'], d['lists'][0]['variants'])")" "(0, 1)" \
	"a reused Message-ID is stored as a second variant"
is "$(sql "SELECT count(*) FROM messages WHERE msgid = '$R'")" 2 "both variants are kept"
is "$(sql 'SELECT count(*) FROM messages')" 62 "62 stored messages"
# the same mail in the other order gives the same series, the first copy
# stored being used (a later copy never displaces it, t0106)
for f in r2 r c p1 p2; do sed '1i From mboxrd@z Thu Jan  1 00:00:00 1970' "$TMP/$f.eml"; echo; done >"$TMP/rev.mbox"
for f in c p1 p2 r r2; do sed '1i From mboxrd@z Thu Jan  1 00:00:00 1970' "$TMP/$f.eml"; echo; done >"$TMP/fwd.mbox"
lorebot --db "$TMP/a.db" fetch --mbox "$TMP/fwd.mbox" >/dev/null
lorebot --db "$TMP/b.db" fetch --mbox "$TMP/rev.mbox" >/dev/null
lorebot --db "$TMP/a.db" series --json >"$TMP/a.json" 2>/dev/null
lorebot --db "$TMP/b.db" series --json >"$TMP/b.json" 2>/dev/null
is "$(json "$TMP/a.json" "[s for s in d['series']]")" "$(json "$TMP/b.json" "[s for s in d['series']]")" \
	"variants: the same series in either order (they give the same trailers)"
like "$(json "$TMP/a.json" "d['problems']")" "<$R>: the Message-ID of message #4, first in the archive" \
	"the later variant is reported, not used"
is "$(sqlite3 "$TMP/a.db" 'SELECT count(*) FROM messages')" 5 "--mbox import: 5 messages"

# the search index lags behind (public-inbox-httpd keeps it open): mail that
# the first search after a change misses is found by the next pass
lore_conf lore.indexlag=1h
cat >"$TMP/late.eml" <<EOF
From: Erin Mm <erin@example.org>
To: linux-mm@kvack.org
Subject: [PATCH] mm: late arrival
Date: $NOW
Message-ID: <$STAMP.late@example.org>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8

$(patch_body 'A late one.' c)
EOF
"$LORE_LAB" deliver --lag "$LAB" <"$TMP/late.eml"
fetch >"$TMP/f5.json"
is "$(json "$TMP/f5.json" "(d['lists'][0]['status'], d['lists'][0]['new'])")" "('ok', 0)" \
	"the probe changed, but the search does not see the message yet"
"$LORE_LAB" reopen "$LAB"
fetch >"$TMP/f6.json"
is "$(json "$TMP/f6.json" "(d['lists'][0]['status'], d['lists'][0]['new'])")" "('ok', 1)" \
	"within lore.indexlag the list is searched again: the late message is found"

# single threads and messages, into an empty database
lorebot --config "$CONF" --db "$TMP/t.db" fetch --url "$URL" \
	--thread 20250115033807.46664-3-21cnbao@gmail.com --json >"$TMP/t.json"
is "$(json "$TMP/t.json" "(d['lists'][0]['new'], d['lists'][0]['threads'])")" "(17, 1)" \
	"--thread: the whole thread (t.mbox.gz) of a patch"
lorebot --config "$CONF" --db "$TMP/m.db" fetch --url "$URL" --message "$P2" --json >"$TMP/m.json"
is "$(json "$TMP/m.json" "d['lists'][0]['new']")" 1 "--message: one message (raw)"
lorebot --config "$CONF" --db "$TMP/m.db" fetch --url "$URL" --message "$R" --json >"$TMP/m2.json"
is "$(json "$TMP/m2.json" "(d['lists'][0]['new'], d['lists'][0]['variants'])")" "(1, 1)" \
	"--message of a reused Message-ID: raw has both variants"
lorebot --config "$CONF" --db "$TMP/m.db" fetch --url "$URL" --message nosuch@example.org \
	>/dev/null 2>"$TMP/err"
is "$?" 3 "--message of an unknown Message-ID fails"
like "$(cat "$TMP/err")" "<nosuch@example.org> is not known" "and says so"

# a query: patches to khugepaged only; their threads are completed
lorebot --config "$CONF" --db "$TMP/q.db" fetch --url "$URL" \
	--query 'dfn:mm/khugepaged.c' --json >"$TMP/q.json" 2>"$TMP/q.err"
is "$?" 0 "fetch with a query exits 0"
is "$(json "$TMP/q.json" "d['lists'][0]['threads'] >= 1")" True \
	"patches whose parents were missing got their threads"
lorebot --db "$TMP/q.db" series --json >"$TMP/qs.json"
is "$(json "$TMP/qs.json" "[(s['version'], s['cover'], len(s['patches'])) for s in d['series'] if not s['superseded_by']]")" \
	"[(7, '20260207081613.588598-1-vernon2gm@gmail.com', 5)]" \
	"only the khugepaged series, complete with its cover letter"
# Windows are assembled as they are stored (the next being fetched
# meanwhile): with windows of 5, the versions reported and the series
# are those of one window, each version reported once
SAVED=$CONF
CONF=$TMP/one.conf lore_conf
CONF=$TMP/five.conf lore_conf lore.batch=5 lore.maxbatches=100
lorebot --config "$TMP/one.conf" --db "$TMP/one.db" fetch --url "$URL" --json >"$TMP/one.json"
lorebot --config "$TMP/five.conf" --db "$TMP/five.db" fetch --url "$URL" --json >"$TMP/five.json"
CONF=$SAVED
is "$(json "$TMP/one.json" "d['lists'][0]['windows']")" 1 "one window"
like "$(json "$TMP/five.json" "d['lists'][0]['windows']")" "^1[0-9]$" "ten windows or more"
changes() {
	json "$1" "sorted((v['change'], v['id'], v['have'], v['total'], v['complete']) for v in d['versions'])"
}
is "$(changes "$TMP/five.json")" "$(changes "$TMP/one.json")" \
	"the same versions reported, in the same state"
is "$(json "$TMP/five.json" "len(d['versions']) == len(set(v['id'] for v in d['versions'])) and set(v['change'] for v in d['versions'])")" \
	"{'new'}" "each once, and new"
lorebot --db "$TMP/one.db" series --json >"$TMP/one-s.json"
lorebot --db "$TMP/five.db" series --json >"$TMP/five-s.json"
is "$(json "$TMP/five-s.json" "d['series']")" "$(json "$TMP/one-s.json" "d['series']")" \
	"the same series"
done_testing

#!/bin/sh
# A Message-ID collision through fetch (issue 38, item 3): Ann's patch
# reaches the archive first; then Eve mails a copy of its Message-ID,
# backdated, with a patch of her own.  lore answered the search in an
# order of its own (public-inbox: the newest arrival first; others by
# Date:, which the sender sets) and the copy stored first won: Ann's
# version lost her patch, Eve's held it.  Now the archive's order of the
# Message-ID's messages (its /raw) decides, never Date: nor the order of
# a search.  A real local public-inbox, one 'lorebot fetch' over both,
# then the daemon's own fetch pass (--once).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Bob <bob@example.org>\nTo: linux-mm@kvack.org\nSubject: hello\nDate: Mon, 1 Jun 2026 09:00:00 +0000\nMessage-ID: <hello@example.org>\n\nhello\n\n' >start.mbox
lab_setup "$TMP/start.mbox"
# patch FROM DATE FILE: a one-patch series with Ann's Message-ID
patch() {
	printf 'From: %s\nTo: linux-mm@kvack.org\nDate: %s\n' "$1" "$2"
	printf 'Subject: [PATCH] mm: add %s\nMessage-ID: <ann-1@example.com>\n\n' "$3"
	printf 'Add %s.\n\nSigned-off-by: %s\n---\n' "$3" "$1"
	newfile "mm/$3.c"
	printf -- '-- \n2.39.2\n'
}
patch 'Ann <ann@example.com>' 'Mon, 1 Jun 2026 10:00:00 +0000' ann >ann.eml
patch 'Eve <eve@example.com>' 'Mon, 1 Jun 2026 09:30:00 +0000' eve >eve.eml
"$LORE_LAB" deliver "$LAB" <ann.eml
"$LORE_LAB" deliver "$LAB" <eve.eml
is "$(curl -s "${URL}ann-1@example.com/raw" | sed -n 's/^From: //p' | tr '\n' ' ')" \
	"Ann <ann@example.com> Eve <eve@example.com> " "the archive has Ann's first"

lorebot --db "$DB" fetch --url "$URL" --since 2026-05-01 --json >"$TMP/fetch.json" 2>"$TMP/fetch.err"
is "$?" 0 "lorebot fetch stores both"
is "$(sql "SELECT count(*) FROM messages WHERE msgid = 'ann-1@example.com'")" 2 "... as two variants"
is "$(sql "SELECT group_concat(from_email || ':' || coalesce(arrival, '-'), ' ')
	FROM (SELECT * FROM messages WHERE msgid = 'ann-1@example.com' ORDER BY from_email)")" \
	"ann@example.com:0 eve@example.com:1" "... ranked as the archive has them"
is "$(sql "SELECT v.title || ' ' || v.author_email FROM versions v WHERE v.gone = 0
	AND v.title LIKE 'mm: add%'")" "mm: add ann ann@example.com" \
	"the version is Ann's, her patch in it (not Eve's, though backdated)"
like "$(lorebot --db "$DB" show '<ann-1@example.com>' --json 2>/dev/null)" "ann@example.com" \
	"lorebot show names the variant that counts"
# the daemon's pass over a fresh database: the same
lore_conf daemon.window=0 reply.mode=outbox build.arch= boot.enable=false \
	core.statedir="$TMP/state"
mkdir -p "$TMP/state"
sec_repo
DB=$TMP/state/lorebot.db
timeout -k 30 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" --repo "$R" \
	--outbox "$TMP/state/outbox" --arch '' --once >"$TMP/d.out" 2>"$TMP/d.err"
is "$?" 0 "daemon --once exits 0"
like "$(cat "$TMP"/state/fetch/*.log)" "<ann-1@example.com> has 2 variants: the one the archive has first counts" \
	"... its log says which counts"
is "$(sql "SELECT v.author_email FROM versions v WHERE v.gone = 0 AND v.title LIKE 'mm: add%'")" \
	ann@example.com "... the version is Ann's"
applied=$(sql "SELECT r.json FROM results r JOIN versions v ON v.id = r.version
	WHERE r.stage = 'apply' AND v.title LIKE 'mm: add%'")
like "$applied" "mm: add ann" "... and Ann's patch is what was applied"
unlike "$applied" "mm: add eve" "... not Eve's"
done_testing

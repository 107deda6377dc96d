#!/bin/sh
# One mail that stopped a list (issue 38, item 6): an in-body
# "Subject: [PATCH 1/2]" line followed by 2.4 MB of ':' took the
# parser 85 s (a memmove per stripped character), the jail killed it at
# 60 s and parsed it again alone, and the window of the lore search was
# one transaction committed at its end: with daemon.fetchtimeout under
# that, the pass was killed every time, nothing it fetched was stored
# and the list never advanced.  Now the subject is cleaned in one pass,
# an in-body header over 64 KiB is not used, a stuck parser costs 30 s
# a batch and 10 s a message (tests/unit/t-store-jail.c), and a fetch
# commits each batch.  The poison among five normal mails, through a
# real local public-inbox, daemon --once with a 60 s fetch time limit:
# all six are stored in that pass and the cursor moves past them.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo
mkdir -p mail
for n in 1 2 3 4 5; do
	newfile "mm/normal$n.c" | mkpatch "normal$n" >"mail/normal$n"
done
# the poison: a patch whose message starts with the in-body Subject:
{
	printf 'From: Eve <eve@example.com>\nDate: Mon, 1 Jun 2026 10:00:03 +0000\n'
	printf 'Subject: [PATCH 1/2] mm: poison\nMessage-ID: <poison@example.com>\n\n'
	printf 'Subject: [PATCH 1/2]'
	head -c 2457600 /dev/zero | tr '\0' ':'
	printf ' mm: poison\n\nA body.\n\nSigned-off-by: Eve <eve@example.com>\n---\n'
	newfile mm/poison.c
	printf -- '-- \n2.39.2\n\n'
} >mail/poison
printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Bob <bob@example.org>\nTo: linux-mm@kvack.org\nSubject: hello\nDate: Mon, 1 Jun 2026 09:00:00 +0000\nMessage-ID: <hello@example.org>\n\nhello\n\n' >start.mbox
lab_setup "$TMP/start.mbox"
for f in mail/normal1 mail/normal2 mail/poison mail/normal3 mail/normal4 mail/normal5; do
	"$LORE_LAB" deliver "$LAB" <"$f" || echo "Bail out! cannot deliver $f"
done
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox daemon.fetchtimeout=60s \
	core.statedir="$TMP/state" core.cachedir="$TMP/cache"
mkdir -p "$TMP/state" "$TMP/cache"
timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" --repo "$R" \
	--outbox "$TMP/state/outbox" --arch '' --once >"$TMP/d.out" 2>"$TMP/d.err"
is "$?" 0 "daemon --once exits 0"
unlike "$(cat "$TMP/d.err")" "AddressSanitizer|runtime error" "no sanitizer report"
unlike "$(cat "$TMP/d.err")" "fetch.*(timed out|killed)" "the fetch pass ended within its time"
is "$(sql "SELECT count(*) FROM messages WHERE msgid LIKE 'normal%'")" 5 \
	"the five normal mails are stored in the same pass"
is "$(sql "SELECT count(*) FROM messages WHERE msgid = 'poison@example.com'")" 1 \
	"... and the poison, once"
# caught up: the cursor is the newest's time less lore.overlap (15m)
ok "the list's cursor moved past them" test "$(sql "SELECT coalesce(cursor, 0) FROM lists")" -gt \
	"$(date -d '2026-06-01 09:45:00 UTC' +%s)"
is "$(sql "SELECT count(*) FROM versions WHERE title LIKE 'mm: normal%'")" 5 \
	"each normal mail is a version"
is "$(sql "SELECT title FROM versions WHERE title LIKE '%poison%'")" "mm: poison" \
	"the poison is one too, its title the mail's own Subject: (the in-body one is not used)"
done_testing

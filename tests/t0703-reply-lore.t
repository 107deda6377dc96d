#!/bin/sh
# Replies delivered into a real public-inbox (the local lore): they land
# in the right thread, their links resolve, lorebot sees them come back,
# an interrupted delivery is confirmed by the archive, a list's reply
# mode is honoured
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

lab_setup
smtp_start
conf() {
	report_conf lore.minpoll=0 lore.indexlag=0 reply.mode=outbox \
		list.linux-mm.url="$URL" list.linux-mm.replymode=smtp \
		list.linux-mm.address=linux-mm@kvack.org \
		smtp.url="smtp://127.0.0.1:$SMTP_PORT" "$@"
}
conf
lorebot --config "$CONF" --db "$DB" fetch --url "$URL" >/dev/null 2>&1
is "$?" 0 "fetched the fixture threads from the local lore"
record "$V004" apply "$RESULTS/apply-004.json"
record "$V004" check "$RESULTS/check-004.json"

lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r1.json" 2>"$TMP/r1.err"
is "$(json "$TMP/r1.json" "(d['sent'], [r['mode'] for r in d['replies']])")" \
	"(1, ['smtp'])" "list.linux-mm.replymode=smtp wins over reply.mode=outbox"
is "$(mails)" 1 "one mail at the SMTP server: apply and check results in one reply"
AID=$(sql "SELECT msgid FROM replies WHERE kind = 'apply'")
tr -d '\r' <"$(grep -l "^Message-ID: <$AID>" "$SMTP_DIR"/*.eml)" >"$TMP/a.eml"
A=$TMP/a.eml
COVER=20250115033807.46664-1-21cnbao@gmail.com
ok "patch link: the cover letter in this list's archive" \
	grep -qx "patch link:    ${URL}$COVER/" "$A"
is "$(sed '/^$/q' "$A" | grep -c 'linux-mm@kvack.org')" 1 "the list address is in Cc once"
is "$(grep -c 'Reported-by:' "$A")" 0 "no Reported-by: asked for an apply failure"

# the list delivers them to the archive
for f in "$SMTP_DIR"/*.eml; do
	tr -d '\r' <"$f" | "$LORE_LAB" deliver "$LAB" || echo "cannot deliver $f"
done
is "$(curl -s -o /dev/null -w '%{http_code}' "${URL}$AID/")" 200 "the reply is in the archive"
is "$(curl -s -o /dev/null -w '%{http_code}' "${URL}$COVER/")" 200 "the patch link resolves"
curl -s "${URL}$COVER/t.mbox.gz" | gunzip >"$TMP/thread.mbox"
is "$(grep -c "^Message-ID: <$AID>" "$TMP/thread.mbox")" 1 \
	"it is in the thread of the series (t.mbox.gz of the cover letter)"
curl -s "${URL}$AID/raw" >"$TMP/raw"
is "$(grep '^In-Reply-To:' "$TMP/raw")" "In-Reply-To: <$COVER>" \
	"the archive threads it under the cover letter"
curl -s "${URL}$COVER/T/" >"$TMP/T.html"
ok "the thread view of the cover letter lists the reply" grep -q "$AID" "$TMP/T.html"

# lorebot follows the list: its replies come back as replies of the thread
n0=$(lorebot --db "$DB" series --json | json - "[v['replies'] for v in d['series'] if v['id'] == '$V004'][0]")
lorebot --config "$CONF" --db "$DB" fetch --force >/dev/null 2>&1
n1=$(lorebot --db "$DB" series --json | json - "[v['replies'] for v in d['series'] if v['id'] == '$V004'][0]")
is "$((n1 - n0))" 1 "after the next fetch the version has one more reply"
lorebot --db "$DB" show --json "$AID" >"$TMP/show.json"
is "$(json "$TMP/show.json" "d['message']['parent']")" "$COVER" \
	"stored with the cover letter as its parent"
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r2.json" 2>/dev/null
is "$(json "$TMP/r2.json" "(d['composed'], d['sent'])")" "(0, 0)" \
	"its own replies do not make lorebot reply again"

# a delivery interrupted after the mail went out: the archive confirms it
record "$V000" apply "$RESULTS/apply-000.json"
record "$V000" check "$RESULTS/check-000.json"
record "$V000" build "$RESULTS/build-000.json"
record "$V000" boot "$RESULTS/boot-000.json"
LOREBOT_TEST_CRASH=sent lorebot --config "$CONF" --db "$DB" reply >/dev/null 2>&1
is "$?" 137 "killed between handing the mail over and recording it"
is "$(mails)" 2 "the mail went out"
CID=$(sql "SELECT msgid FROM replies WHERE version = '$V000'")
is "$(sql "SELECT state FROM replies WHERE msgid = '$CID'")" sending "recorded as 'sending'"
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r3.json" 2>/dev/null
is "$(sql "SELECT state FROM replies WHERE msgid = '$CID'")" sending \
	"not in the archive yet: it waits (reply.indoubt)"
is "$(mails)" 2 "and is not sent again"
tr -d '\r' <"$SMTP_DIR/0002.eml" >"$TMP/b.eml"
"$LORE_LAB" deliver "$LAB" <"$TMP/b.eml"
ok "Closes: is the report's permanent page" \
	grep -qx "| Closes: http://127.0.0.1:8080/r/${CID%%-lorebot@*}" "$TMP/b.eml"
is "$(curl -s -o /dev/null -w '%{http_code}' "${URL}$CID/")" 200 "the reply is in this list's archive"
lorebot --config "$CONF" --db "$DB" fetch --force >/dev/null 2>&1
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r4.json" 2>/dev/null
is "$(sql "SELECT state, reason FROM replies WHERE msgid = '$CID'")" \
	"sent|found in the list archive after an interrupted delivery" \
	"the next fetch brought it back: recorded sent"
is "$(mails)" 2 "exactly one copy was sent"

# archives keep one copy of a Message-ID: a resent reply is not doubled
"$LORE_LAB" deliver "$LAB" <"$TMP/b.eml" >"$TMP/dup.out" 2>&1
like "$(cat "$TMP/dup.out")" "CONFLICT: Message-ID: <$CID> exists" \
	"the archive refuses a second copy of the Message-ID"
curl -s "${URL}$V000/t.mbox.gz" | gunzip >"$TMP/thread0.mbox"
is "$(grep -c "^Message-ID: <$CID>" "$TMP/thread0.mbox")" 1 \
	"the same reply delivered twice is in the thread once"

# the dashboard's metrics know when lore was last polled
serve_start
curl -s "$WEB/metrics" >"$TMP/metrics"
last=$(sql "SELECT last_ok FROM lists WHERE name = 'linux-mm'")
ok "the last successful lore poll, per list" \
	grep -qx "lorebot_lore_last_success_timestamp_seconds{list=\"linux-mm\"} $last" "$TMP/metrics"
ok "and the failures in a row" grep -qx 'lorebot_lore_failures{list="linux-mm"} 0' "$TMP/metrics"
serve_stop

# reply mode off for the list: recorded as skipped, never mailed
conf list.linux-mm.replymode=off
record "$V003" apply "$RESULTS/apply-003.json"
record "$V003" check "$RESULTS/check-003.json"
record "$V003" build "$RESULTS/build-003.json"
record "$V003" boot "$RESULTS/boot-003.json"
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r5.json" 2>/dev/null
is "$(sql "SELECT state, reason FROM replies WHERE version = '$V003'")" "skipped|reply mode is off" \
	"list.linux-mm.replymode=off: skipped"
is "$(mails)" 2 "nothing sent"
conf
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r6.json" 2>/dev/null
is "$(json "$TMP/r6.json" "d['composed']")" 0 "turning it on later does not mail the old results"
done_testing

#!/bin/sh
# Job priority was the mail's Date: (issue 38, item 7): a series dated
# 2100 ran before every other job, for good, and topped the dashboard.
# Now a message's date is never after it was received, and a version's
# jobs are ordered by when it arrived.  A series dated 2100 is fetched
# from a real local public-inbox, then, a pass later, a normal one: the
# later arrival's jobs go first (newest first), the 2100 series is dated
# when it was received and does not top the list, and the fetch cursor
# never passes now (the lab's inbox takes Date: for the time received,
# so a cursor in 2100 would have hidden the second series).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo
printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Bob <bob@example.org>\nTo: linux-mm@kvack.org\nSubject: hello\nDate: Mon, 1 Jun 2026 09:00:00 +0000\nMessage-ID: <hello@example.org>\n\nhello\n\n' >start.mbox
lab_setup "$TMP/start.mbox"
newfile mm/future.c | mkpatch future | sed 's/^Date: .*/Date: Fri, 1 Jan 2100 00:00:00 +0000/' >future.eml
lore_conf daemon.window=0 reply.mode=outbox boot.enable=false daemon.light=1 \
	core.statedir="$TMP/state"
mkdir -p "$TMP/state"
DB=$TMP/state/lorebot.db
"$LORE_LAB" deliver "$LAB" <future.eml
before=$(date +%s)
lorebot --db "$DB" --config "$CONF" fetch --url "$URL" --since 2026-05-01 >/dev/null 2>&1
is "$?" 0 "the series dated 2100 is fetched"
after=$(date +%s)
ok "its date is when it was received, not 2100" \
	test "$(sql "SELECT date FROM versions WHERE title = 'mm: future'")" -le "$after"
ok "the list's cursor is not past now" test "$(sql "SELECT cursor FROM lists")" -le "$after"
sleep 2
newfile mm/normal.c | mkpatch normal | sed "s/^Date: .*/Date: $(date -R)/" >normal.eml
"$LORE_LAB" deliver "$LAB" <normal.eml
lorebot --db "$DB" --config "$CONF" fetch --url "$URL" >/dev/null 2>&1
is "$(sql "SELECT count(*) FROM versions WHERE title = 'mm: normal'")" 1 \
	"a pass later, the normal series is fetched (the cursor hid nothing)"
is "$(sql "SELECT title FROM versions ORDER BY date DESC LIMIT 1")" "mm: normal" \
	"the newest by date is the normal series, not the one dated 2100"

timeout -k 30 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" --repo "$R" \
	--outbox "$TMP/state/outbox" --arch '' --once >"$TMP/d.out" 2>"$TMP/d.err"
is "$?" 0 "daemon --once exits 0"
prio() {
	sql "SELECT j.priority FROM jobs j JOIN versions v ON v.id = j.version
		WHERE j.kind = 'apply' AND v.title = 'mm: $1'"
}
ok "the later arrival's jobs have the higher priority ($(prio normal) > $(prio future))" \
	test "$(prio normal)" -gt "$(prio future)"
ok "... its priority is when it arrived, not 2100" test "$(prio future)" -le "$after" -a \
	"$(prio future)" -ge "$before"
is "$(sed -n 's/.*: apply of <\([a-z]*\)@example.com> started.*/\1/p' "$TMP/d.err" | tr '\n' ' ')" \
	"normal future " "one light job at a time: the normal series was applied first"
done_testing

#!/bin/sh
# Answers to lorebot's mails, through the local lore and the daemon: v1
# gets a review finding; its author answers "lorebot: invalid <id>"; v2 and
# v3 carry the same code and get no mail for it (the dashboard shows it
# dismissed, by whom and why); the same answer from someone else changes
# nothing and is logged; a quoted command does nothing; "lorebot: retest"
# tests the latest version again, once per reply.retestinterval; reading
# every answer again (a refetch, a crash before the cursor moved)
# changes nothing.
# schedule: middle 2.1 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"

mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"
R=$TMP/mm.git
mm_clone "$R"
W=$TMP/work
git clone -q --shared "$(mm_repo)" "$W"
git -C "$W" checkout -q -b walk mm-new
# a spinlock held across cond_resched(): atomic-sleep, an mm rule
$PY - "$W/mm/mremap.c" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
i = s.index('\nstatic pmd_t *get_old_pmd(')
s = s[:i] + '''
static void walk_pmd_tables(struct mm_struct *mm, unsigned long nr)
{
	unsigned long i;

	spin_lock(&mm->page_table_lock);
	for (i = 0; i < nr; i++)
		cond_resched();
	spin_unlock(&mm->page_table_lock);
}
''' + s[i:]
open(p, 'w').write(s)
EOF
git -C "$W" commit -q -am "mm/mremap: walk the page tables in steps

Walk them a step at a time.

Signed-off-by: lorebot test <test@lorebot.invalid>"
AUTHOR=test@lorebot.invalid
# patch V: the patch as version V, sent now, in $TMP/vV.patch; post V:
# delivered to the lab too (its received time is its Date:, for lore's
# search: now)
patch() {
	_r=
	[ "$1" -gt 1 ] && _r="--reroll-count=$1"
	git -C "$W" format-patch -q --stdout --thread --base=mm-new $_r --to=linux-mm@kvack.org -1 |
		sed "s/^\(Message-I[dD]: <\)/\1walk-v$1./; s/^Date: .*/Date: $(date -R)/" >"$TMP/v$1.patch"
}
post() {
	patch "$@" && "$LORE_LAB" deliver "$LAB" <"$TMP/v$1.patch"
}
# answer NAME FROM PARENT BODY: a reply to PARENT (a Message-ID) from FROM
answer() {
	printf 'From: %s\nTo: linux-mm@kvack.org\nSubject: Re: [PATCH] mm/mremap: walk the page tables in steps\nDate: %s\nMessage-ID: <%s@example.org>\nIn-Reply-To: <%s>\nReferences: <%s>\n\n%s\n' \
		"$2" "$(date -R)" "$1" "$3" "$3" "$4" >"$TMP/$1.eml"
	"$LORE_LAB" deliver "$LAB" <"$TMP/$1.eml"
}

patch 1
lab_setup "$TMP/v1.patch"
OUT=$TMP/outbox
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox check.checkpatch=false
daemon() {
	timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" \
		--repo "$R" --outbox "$OUT" --arch '' --once "$@"
}
mails_to() {
	grep -l "^In-Reply-To: <$1>" -r "$OUT" 2>/dev/null | wc -l | tr -d ' '
}

daemon >/dev/null 2>"$TMP/d1.err"
is "$?" 0 "v1: daemon --once exits 0"
V1=$(sql "SELECT id FROM versions WHERE version = 1")
is "$(mails_to "$V1")" 1 "v1: one mail"
M1=$(grep -l "^In-Reply-To: <$V1>" -r "$OUT")
ID=$(sed -n 's/^>> mm\/mremap.c:[0-9:]* warning: .*\[atomic-sleep\] \[id \([0-9a-f]*\)\]$/\1/p' "$M1")
like "$ID" "^[0-9a-f]{8}$" "v1: the atomic-sleep finding, with its id ($ID)"
like "$(cat "$M1")" '^this mail with a line of its own, "lorebot: invalid ID why" \(ID in$' \
	"v1: the mail says how to answer it"
R1=$(sql "SELECT msgid FROM replies WHERE version = '$V1'")
# the list has lorebot's mail as well
"$LORE_LAB" deliver "$LAB" <"$M1"

# answers: a stranger's, the author's quoted only, then the author's
answer stranger "Sam Stranger <sam@example.org>" "$R1" \
	"lorebot: invalid $ID I do not like it"
answer quoted "lorebot test <$AUTHOR>" "$R1" \
	"> lorebot: invalid $ID
> lorebot: retest

Thanks, looking."
answer author "lorebot test <$AUTHOR>" "$R1" \
	"On Mon, lorebot wrote:
> >> mm/mremap.c: warning: 'cond_resched()' may sleep [atomic-sleep] [id $ID]

lorebot: invalid $ID the lock is dropped in the real code
"
daemon >/dev/null 2>"$TMP/d2.err"
is "$(sql "SELECT sender || '|' || outcome FROM answers ORDER BY created, msgid")" \
	"$AUTHOR|done
sam@example.org|ignored" "two commands recorded: the author's done, the stranger's ignored"
is "$(sql "SELECT count(*) FROM answers WHERE msgid = 'quoted@example.org'")" 0 \
	"quoted lines count for nothing"
is "$(sql "SELECT kind || ' ' || target || ' ' || who || ': ' || why FROM dismissals")" \
	"finding $ID $AUTHOR: the lock is dropped in the real code" \
	"the dismissal: which, who, why"
like "$(cat "$TMP/d2.err")" "answer <stranger@example.org> from sam@example.org: \"lorebot: invalid $ID I do not like it\": ignored: sam@example.org is not the author, a reviewer or a maintainer" \
	"the stranger's command is logged as ignored, saying why"
is "$(sql "SELECT count(*) FROM retests")" 0 "no retest from a quoted line"

# v2 and v3: the same code, no mail about it
sleep 1
post 2
daemon >/dev/null 2>"$TMP/d3.err"
sleep 1
post 3
daemon >/dev/null 2>"$TMP/d4.err"
V2=$(sql "SELECT id FROM versions WHERE version = 2")
V3=$(sql "SELECT id FROM versions WHERE version = 3")
is "$(sql "SELECT json_extract(json, '\$.findings[0].rule') FROM results
	WHERE stage = 'check' AND version = '$V3'")" atomic-sleep "v3 has the finding still"
is "$(mails_to "$V2")$(mails_to "$V3")" 00 "v2 and v3: no mail about it"
PORT=$(free_port)
"$LOREBOT" --db "$DB" serve --listen "127.0.0.1:$PORT" --arch "" >/dev/null 2>"$TMP/serve.err" &
cleanup_add "kill $!"
S=$(sql "SELECT series FROM versions WHERE id = '$V3'")
_i=0
until curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null; do
	_i=$((_i + 1)); [ $_i -lt 100 ] || break; sleep 0.1
done
curl -s "http://127.0.0.1:$PORT/series/$S" >"$TMP/page.html"
like "$(cat "$TMP/page.html")" "id $ID</span> <span class=\"[^\"]*\" title=\"dismissed\">dismissed</span> <span class=\"muted\">by $AUTHOR: the lock is dropped in the real code; not mailed" \
	"the dashboard shows it dismissed, by whom and why"

# the stranger again, on a rule: nothing changes
answer stranger2 "Sam Stranger <sam@example.org>" "$R1" "lorebot: ignore atomic-sleep"
daemon >/dev/null 2>"$TMP/d5.err"
is "$(sql "SELECT count(*) FROM dismissals")" 1 "the stranger's 'ignore' dismisses nothing"

# retest: the latest version, once per reply.retestinterval
n=$(sql "SELECT count(*) FROM jobs WHERE version = '$V3'")
answer retest1 "lorebot test <$AUTHOR>" "$R1" "Please try again.

lorebot: retest"
daemon >/dev/null 2>"$TMP/d6.err"
is "$(sql "SELECT version || ' ' || who FROM retests")" "$V3 $AUTHOR" "retest: v3 queued again, for the author"
is "$(sql "SELECT group_concat(kind || ':' || state, ',') FROM (SELECT kind, state FROM jobs
	WHERE version = '$V3' ORDER BY id)")" "apply:done,check:done,reply:done" \
	"its stages ran again"
like "$(cat "$TMP/d6.err")" "job [0-9]+: apply of <$V3> done" "the daemon's log shows it"
is "$(mails_to "$V3")" 1 "the retest is answered, though nothing is left to mail"
like "$(cat "$(grep -l "^In-Reply-To: <$V3>" -r "$OUT")")" "Tested again, as $AUTHOR asked" \
	"saying who asked"
is "$(sql "SELECT kind FROM replies WHERE version = '$V3'")" "clean (retest 1)" \
	"a reply of its own round"
answer retest2 "lorebot test <$AUTHOR>" "$R1" "lorebot: retest"
daemon >/dev/null 2>"$TMP/d7.err"
is "$(sql "SELECT count(*) FROM retests")" 1 "a second retest within the hour: not queued"
like "$(sql "SELECT reason FROM answers WHERE msgid = 'retest2@example.org'")" \
	"once per reply.retestinterval" "saying why"

# every answer read again (the cursor lost, as after a crash): nothing new
sql "UPDATE state SET value = '0' WHERE key = 'answers_seen'"
before=$(sql "SELECT (SELECT count(*) FROM answers) || (SELECT count(*) FROM dismissals) ||
	(SELECT count(*) FROM retests)")
lorebot --db "$DB" --config "$CONF" fetch --url "$URL" --force --json >"$TMP/f.json" 2>"$TMP/f.err"
is "$(json "$TMP/f.json" "len(d['answers'])")" 0 "read again: no command taken twice"
is "$(sql "SELECT (SELECT count(*) FROM answers) || (SELECT count(*) FROM dismissals) ||
	(SELECT count(*) FROM retests)")" "$before" "answers, dismissals and retests as they were"
done_testing

#!/bin/sh
# A fresh tree, and bases found before blame (issue 19).  A second
# repository served by git daemon on 127.0.0.1 plays the upstream mm tree,
# with commits the bot's tree lacks.  The daemon fetches it before it
# applies: a series whose base-commit only upstream has is applied and
# tested on it, with no apply-failure mail; a base-commit on a branch no
# remote fetches is fetched by its id; a base found nowhere ends
# base-unknown with no "could not apply" mail; the branches are fetched
# at most every git.fetchinterval, and a base branch is used as fetched.
# Every version, the fixture threads' included, gets at most one mail;
# thread 003, whose base is not in the tree, gets one with its two real
# review findings and a line saying it was not built or booted (issue 41).
# schedule: middle 2.3 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"

mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"
[ -x "$(git --exec-path)/git-daemon" ] || skip_all "no git daemon"
lab_setup
R=$TMP/mm.git
mm_clone "$R"
UP=$TMP/up/mm.git
mm_clone "$UP"
HERE=$(git --git-dir="$R" rev-parse mm-new)

# commit_on REPO PARENT FILE SED-EXPR SUBJECT: a commit of PARENT with FILE
# edited, made without a checkout; prints its id
commit_on() {
	_blob=$(git --git-dir="$1" show "$2:$3" | sed "$4" | git --git-dir="$1" hash-object -w --stdin)
	rm -f "$TMP/index"
	GIT_INDEX_FILE=$TMP/index git --git-dir="$1" read-tree "$2" &&
	GIT_INDEX_FILE=$TMP/index git --git-dir="$1" update-index --cacheinfo "100644,$_blob,$3" &&
	_tree=$(GIT_INDEX_FILE=$TMP/index git --git-dir="$1" write-tree) &&
	printf '%s\n\nSigned-off-by: lorebot test <test@lorebot.invalid>\n' "$5" |
		git --git-dir="$1" commit-tree "$_tree" -p "$2"
}
# post REPO BASE TIP NAME [SED]: the patch BASE..TIP as git send-email
# posts it (base-commit: BASE), edited by SED, delivered to the lab;
# sets MSGID.  The Message-ID is format-patch's with NAME in front: the
# same commit posted twice within a second would otherwise get the same
# one, and the lore keeps only the first.
post() {
	git --git-dir="$1" format-patch -q --thread --base="$2" --to=linux-mm@kvack.org \
		--stdout "$2..$3" | sed "${5:-}" |
		sed "s/^\(Message-I[dD]: <\)/\1$4./" >"$TMP/$4.patch" &&
	MSGID=$(sed -n 's/^Message-I[dD]: <\(.*\)>$/\1/p' "$TMP/$4.patch") &&
	"$LORE_LAB" deliver "$LAB" <"$TMP/$4.patch"
}
# mm/mremap.c with one more comment line after <linux/mm.h>
mark() {
	printf '0,/^#include <linux\\/mm.h>$/s||#include <linux/mm.h>\\n/* %s */|' "$1"
}

# upstream: mm-new has moved on; a branch no remote fetches has another
UPC=$(commit_on "$UP" mm-new mm/mremap.c "$(mark 'upstream only')" "mm: upstream only")
git --git-dir="$UP" update-ref refs/heads/mm-new "$UPC"
NEXT=$(commit_on "$UP" mm-new mm/mremap.c 's|/\* upstream only \*/|/* upstream, next */|' \
	"mm: on a branch nobody fetches")
git --git-dir="$UP" update-ref refs/heads/other "$NEXT"
git --git-dir="$UP" config uploadpack.allowReachableSHA1InWant true
# a base that exists nowhere but in a scratch repository
mm_clone "$TMP/scratch.git"
NOWHERE=$(commit_on "$TMP/scratch.git" mm-new mm/mremap.c "$(mark 'nowhere')" "mm: nowhere")

# each series edits the line its base added: it applies on that base only
UTIP=$(commit_on "$UP" "$UPC" mm/mremap.c 's|/\* upstream only \*/|/* upstream only, and more */|' \
	"mm/mremap: say more upstream")
post "$UP" "$UPC" "$UTIP" up
VU=$MSGID
ITIP=$(commit_on "$UP" "$NEXT" mm/mremap.c 's|/\* upstream, next \*/|/* upstream, next, more */|' \
	"mm/mremap: say more on the other branch")
# it fixes a commit upstream has (the bot's tree once fetched too) and
# one that exists nowhere: only the second is the author's problem
fixes() {
	printf 's/^Signed-off-by: lorebot test/Fixes: %s ("mm: upstream only")\\nFixes: %s ("mm: nowhere")\\n\\0/' \
		"$(echo "$UPC" | cut -c1-12)" "$(echo "$NOWHERE" | cut -c1-12)"
}
post "$UP" "$NEXT" "$ITIP" byid "$(fixes)"
VI=$MSGID
NTIP=$(commit_on "$TMP/scratch.git" "$NOWHERE" mm/mremap.c 's|/\* nowhere \*/|/* nowhere, more */|' \
	"mm/mremap: say more about nowhere")
post "$TMP/scratch.git" "$NOWHERE" "$NTIP" nowhere
VN=$MSGID

GPORT=$(free_port)
git daemon --listen=127.0.0.1 --port="$GPORT" --base-path="$TMP/up" --export-all \
	--reuseaddr --pid-file="$TMP/gitd.pid" "$TMP/up" >"$TMP/gitd.log" 2>&1 &
cleanup_add "kill $!"
GURL=git://127.0.0.1:$GPORT/mm.git
_i=0
until git ls-remote "$GURL" >/dev/null 2>&1; do
	_i=$((_i + 1))
	[ $_i -lt 100 ] || { echo "Bail out! git daemon did not start"; exit 1; }
	sleep 0.1
done

OUT=$TMP/outbox
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox check.checkpatch=false \
	remote.mm.url="$GURL" remote.mm.branch=mm-new git.fetchinterval=1h
daemon() {
	timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" \
		--repo "$R" --outbox "$OUT" --arch '' --once "$@"
}
apply_of() {
	sql "SELECT status || ' ' || json_extract(json, '\$.base.name') || ' ' ||
		json_extract(json, '\$.base.sha') FROM results
		WHERE stage = 'apply' AND version = '$1'"
}
state_of() {
	lorebot --db "$DB" status --json | json - "[v['state'] for v in d['recent'] if v['id'] == '$1'][0]"
}
# the mails in the outbox replying to $1
mails_to() {
	grep -l "^In-Reply-To: <$1>" -r "$OUT" 2>/dev/null | wc -l | tr -d ' '
}

daemon >"$TMP/d1.out" 2>"$TMP/d1.err"
is "$?" 0 "daemon --once exits 0"
is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "every job done"
is "$(git --git-dir="$R" rev-parse refs/remotes/mm/mm-new)" "$UPC" \
	"the upstream mm-new was fetched over git://"
like "$(cat "$TMP"/jobs/*/job.log)" "job [0-9]+: fetched mm-new from mm \($GURL\)" \
	"the apply job's log says so"

is "$(apply_of "$VU")" "applied base-commit $UPC" \
	"a base-commit only upstream has: applied on it"
is "$(sql "SELECT group_concat(kind || ':' || state, ',') FROM (SELECT kind, state FROM jobs
	WHERE version = '$VU' ORDER BY id)")" "apply:done,check:done,reply:done" \
	"and tested (check) and replied to"
is "$(sql "SELECT count(*) FROM replies WHERE version = '$VU' AND kind = 'apply'")" 0 \
	"no apply-failure reply for it"
is "$(mails_to "$VU")" 0 "nothing to mail: it applies and has no finding"

is "$(apply_of "$VI")" "applied base-commit $NEXT" \
	"a base-commit on a branch no remote fetches: fetched by its id, applied on it"
is "$(git --git-dir="$R" rev-parse "refs/lorebot/bases/$NEXT")" "$NEXT" "kept under refs/lorebot/bases/"
like "$(cat "$TMP"/jobs/*/job.log)" "fetched base-commit $NEXT from mm" "the log says where from"
# the ids its Fixes: name, looked up in the fresh tree
id_findings() {
	sql "SELECT json FROM results WHERE stage = 'check' AND version = '$1'" |
		json - "sorted(f['message'][:36] for f in d['findings'] if f['rule'] == 'fixes-tag')"
}
is "$(id_findings "$VI")" "['Fixes: commit $(echo "$NOWHERE" | cut -c1-12) is not in']" \
	"a fresh tree: the id found nowhere is reported, the upstream one is known"

like "$(apply_of "$VN")" "^failed mm/mm-new $UPC\$" \
	"a base found nowhere: tried on mm-new as fetched (mm/mm-new), where it fails"
is "$(state_of "$VN")" base-unknown "its state is base-unknown"
is "$(mails_to "$VN")" 0 "no mail about it (reply.baseunknown = off)"
is "$(grep -rl 'lorebot apply FAILED' "$OUT" 2>/dev/null | xargs -r grep -l "$VN" | wc -l | tr -d ' ')" 0 \
	"no 'could not apply' mail"
is "$(sql "SELECT count(*) FROM replies WHERE version = '$VN'")" 0 "nor any reply recorded"

# one mail per version at most; the fixture threads' included
sql "SELECT coalesce(cover, id) FROM versions WHERE gone = 0" >"$TMP/versions"
many=
while read -r v; do
	n=$(mails_to "$v")
	[ "$n" -le 1 ] || many="$many $v:$n"
done <"$TMP/versions"
is "$many" "" "no version has two mails"
is "$(find "$OUT" -type f | wc -l | tr -d ' ')" \
	"$(sql "SELECT count(DISTINCT version) FROM replies WHERE state = 'sent'")" \
	"as many mails as versions replied to"

# the fixture threads, in the same first run, reply.baseunknown as it
# comes (review): a version whose base the bot lacks gets the review of
# its hunks in one mail, with one line saying it was not built or booted;
# 003 (khugepaged v7, base-commit a1a876489abc, not in the tree) has two
# real review findings, lazyfree-droppable on 4/5 and progress-accounting
# on 2/5.  (A second daemon run from scratch did the same work again.)
fixture_versions() {
	sql "SELECT coalesce(cover, id) FROM versions WHERE gone = 0 AND
		coalesce(cover, id) NOT LIKE '%lorebot.invalid' AND superseded_by IS $1"
}
fixture_versions NULL >"$TMP/fixture-versions"
ok "the fixture threads have versions" test -s "$TMP/fixture-versions"
# (none of them has two mails: "no version has two mails" above)
V003=20260207081613.588598-1-vernon2gm@gmail.com
is "$(state_of "$V003")" base-unknown "003: base-unknown"
is "$(mails_to "$V003")" 1 "003: exactly one mail"
M003=$(grep -l "^In-Reply-To: <$V003>" -r "$OUT")
is "$(sed -n 's/^>> \(mm\/khugepaged.c\):[0-9:]* warning: .*\[\([a-z-]*\)\] \[id [0-9a-f]*\]$/\1 \2/p' "$M003" |
	sort -u | tr '\n' ' ')" "mm/khugepaged.c lazyfree-droppable mm/khugepaged.c progress-accounting " \
	"003: its two mm-rule findings, with their location"
is "$(grep -B1 -A1 '^>> mm/khugepaged.c' "$M003" | sed -n 's/^patch \([0-9]\/5\) .*/\1/p' | tr '\n' ' ')" \
	"2/5 4/5 " "003: progress-accounting under 2/5, lazyfree-droppable under 4/5"
is "$(grep -c '^\[not built or booted: base-commit' "$M003")" 1 \
	"003: one line says it was not built or booted"
ok "003: and why: the base it lacks" grep -q '^a1a876489abcc1e75b03bd3b2f6739ceeaaec8c5 is not in' "$M003"
is "$(grep -c '^Patch [0-9/]* (.*) does not\|Reported-by' "$M003")" 0 \
	"003: no apply failure charged to the author"
# 003's v1 arrived with its v2: nothing is said of it, the v2 mail is the one
fixture_versions "NOT NULL" >"$TMP/superseded"
is "$(wc -l <"$TMP/superseded" | tr -d ' ')" 1 "one version was superseded before it was tested"
is "$(mails_to "$(cat "$TMP/superseded")")" 0 "and gets no mail"

# at most every git.fetchinterval; then mm-new moves and a series needs it
UPC2=$(commit_on "$UP" "$UPC" mm/mremap.c 's|/\* upstream only \*/|/* upstream only, later */|' \
	"mm: upstream later")
git --git-dir="$UP" update-ref refs/heads/mm-new "$UPC2"
LTIP=$(commit_on "$UP" "$UPC2" mm/mremap.c 's|/\* upstream only, later \*/|/* later, more */|' \
	"mm/mremap: say more later")
# sent without base-commit:
post "$UP" "$UPC2" "$LTIP" later-1 '/^base-commit: /d'
VL1=$MSGID
rm -f "$TMP"/jobs/*/job.log
daemon >/dev/null 2>"$TMP/d2.err"
is "$(git --git-dir="$R" rev-parse refs/remotes/mm/mm-new)" "$UPC" \
	"within git.fetchinterval: not fetched again"
unlike "$(cat "$TMP"/jobs/*/job.log)" "fetched" "nothing fetched"
like "$(apply_of "$VL1")" "^failed mm/mm-new $UPC\$" \
	"a series on the newer mm-new, without base-commit: fails on the tree as it is"
is "$(state_of "$VL1")" apply-failed "apply-failed: the bot could not know better"

lore_conf daemon.window=0 boot.enable=false reply.mode=outbox check.checkpatch=false \
	remote.mm.url="$GURL" remote.mm.branch=mm-new git.fetchinterval=0
# the same patch again under another title
post "$UP" "$UPC2" "$LTIP" later-2 '/^base-commit: /d; s/say more later/say more later, again/'
VL2=$MSGID
daemon >/dev/null 2>"$TMP/d3.err"
is "$(git --git-dir="$R" rev-parse refs/remotes/mm/mm-new)" "$UPC2" \
	"git.fetchinterval = 0: fetched before the apply"
is "$(apply_of "$VL2")" "applied mm/mm-new $UPC2" \
	"the same series now applies on the fresh mm-new, and the base says which"

# git.fetch off: the tree may lack any id, so none is blamed on the author
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox check.checkpatch=false \
	git.fetch=false
post "$UP" "$UPC2" "$LTIP" stale '/^base-commit: /d; s/say more later/say more later, stale/'"; $(fixes)"
VS=$MSGID
daemon >/dev/null 2>"$TMP/d3s.err"
is "$(id_findings "$VS")" "['commit ids the tree lacks are not re']" \
	"git.fetch off: no id reported, one note instead"
like "$(sql "SELECT json FROM results WHERE stage = 'check' AND version = '$VS'")" \
	"commit ids the tree lacks are not reported: git.fetch is off" "saying why"

# a remote that cannot be reached while the base is missing: tried again
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox check.checkpatch=false \
	remote.mm.url="git://127.0.0.1:$(free_port)/mm.git" remote.mm.branch=mm-new \
	daemon.attempts=1
NTIP2=$(commit_on "$TMP/scratch.git" "$NOWHERE" mm/mremap.c 's|/\* nowhere \*/|/* nowhere, again */|' \
	"mm/mremap: say again about nowhere")
post "$TMP/scratch.git" "$NOWHERE" "$NTIP2" nowhere-2
VN2=$MSGID
daemon >/dev/null 2>"$TMP/d4.err"
is "$(sql "SELECT status FROM results WHERE stage = 'apply' AND version = '$VN2'")" infra \
	"the fetch failed and the base is missing: an infrastructure failure, not apply-failed"
is "$(mails_to "$VN2")" 0 "and no mail"

# reply.baseunknown = line: every version gets exactly one mail (a base
# the bot lacks and nothing to review: one short line)
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox check.checkpatch=false \
	remote.mm.url="$GURL" remote.mm.branch=mm-new reply.baseunknown=line
DB=$TMP/fixtures-line.db
OUT=$TMP/outbox-fixtures-line
daemon >/dev/null 2>"$TMP/d6.err"
counts=
while read -r v; do
	counts="$counts $(mails_to "$v")"
done <"$TMP/fixture-versions"
is "$(echo $counts | tr ' ' '\n' | sort -u | tr '\n' ' ')" "1 " \
	"reply.baseunknown=line: every version of the fixture threads, exactly one mail"
done_testing

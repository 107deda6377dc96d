#!/bin/sh
# doc/technical/stage.md's recipe, "Adding a stage", is complete: in a
# copy of the source tree a new stage is one new file (bot/stage/stage-toy.c)
# and one row of the stage table (STAGE_LIST in bot/results/plan.h), and its
# command one new file (cmd/cmd-toy.c) and its rows in the command
# table (cmd/main.c, cmd/cmd.h): tests/fixtures/stage-toy/, the toy
# stage, which finds the patches whose subject is long.  Nothing else is
# edited.  The copy builds (over the objects of $LOREBOT's build, so only
# what the rows change is compiled again), and the toy stage goes all the
# way: the plan waits for it, the job runner runs its command as it runs
# any stage's (sandboxed), its result is checked against its contract,
# recorded and summed up, and the version's state, the reply and the
# dashboard show it.
# schedule: middle 1 (wall minutes: it builds the copy, over the objects)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

TOY=$FIXTURES/stage-toy
B=$(dirname "$LOREBOT")
BNAME=${B##*/}
case "$B" in
"$LOREBOT_SRC/$BNAME") ;;
*) skip_all "$LOREBOT is not a build of $LOREBOT_SRC" ;;
esac
[ -f "$B/liblorebot.a" ] || skip_all "no objects beside $LOREBOT"
git -C "$LOREBOT_SRC" rev-parse --git-dir >/dev/null 2>&1 ||
	skip_all "$LOREBOT_SRC is not a git checkout"
case "$BNAME" in
build-san) MAKEVARS="SAN=1" ;;
build) MAKEVARS= ;;
*) MAKEVARS="BUILD=$BNAME" ;;
esac

# -- the copy: the tracked files as they are now, and the build's objects
S=$TMP/src
mkdir -p "$S"
(cd "$LOREBOT_SRC" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$S"
(cd "$LOREBOT_SRC" && tar -cf - --exclude="$BNAME/tests" --exclude="$BNAME/fuzz-*" \
	"$BNAME") | tar -xf - -C "$S"
ok "the tree and its objects copied" test -f "$S/bot/stage/stage.h" -a -f "$S/$BNAME/liblorebot.a"
# the tree stays as it is
git -C "$LOREBOT_SRC" ls-files | LC_ALL=C sort >"$TMP/files.before"

# -- the recipe: two new files, and a row in each table
cp "$TOY/stage-toy.c" "$S/bot/stage/stage-toy.c"
cp "$TOY/cmd-toy.c" "$S/cmd/cmd-toy.c"
sed -i 's/^\tX(REPLY, reply)$/\tX(TOY, toy)\t\t\t\t\t\t\t\\\n&/' "$S/bot/results/plan.h"
sed -i 's/^CMD_DECL(boot);$/&\nCMD_DECL(toy);/' "$S/cmd/cmd.h"
sed -i 's/^\t  cmd_boot_help, 0 },$/&\n\t{ "toy", cmd_toy, "the toy stage: patches with a long subject",\n\t  cmd_toy_help, 0 },/' \
	"$S/cmd/main.c"
changed=$(cd "$S" && for f in $(cat "$TMP/files.before"); do
	cmp -s "$f" "$LOREBOT_SRC/$f" || echo "$f"; done | tr '\n' ' ')
is "$changed" "bot/results/plan.h cmd/cmd.h cmd/main.c " "three files have a row more, and no other"
is "$(diff "$LOREBOT_SRC/bot/results/plan.h" "$S/bot/results/plan.h" | grep -c '^>')" 1 \
	"the stage table: one row"

# -- it builds, with -Werror, compiling again only what the rows change
# shellcheck disable=SC2086
nice make -C "$S" $MAKEVARS "$BNAME/lorebot" >"$TMP/make.out" 2>&1
is "$?" 0 "the copy builds" || cat "$TMP/make.out" >&2
diag "$(grep -c ' CC ' "$TMP/make.out") files compiled again"
LOREBOT=$S/$BNAME/lorebot
export LOREBOT
lorebot toy --help >"$TMP/help" 2>&1
like "$(cat "$TMP/help")" "lorebot-toy - the toy stage" "its command is in the command table"

# -- its result: recorded, checked, summed up
fill_db
record "$V003" apply "$RESULTS/apply-003.json" &&
record "$V003" check "$RESULTS/check-003.json" &&
record "$V003" build "$RESULTS/build-003.json" &&
record "$V003" boot "$RESULTS/boot-003.json"
is "$?" 0 "003's apply, check, build and boot recorded"
state() {
	lorebot --db "$DB" status --json --recent 10 | $PY -c '
import json, sys
print([v["state"] for v in json.load(sys.stdin)["recent"] if v["id"] == sys.argv[1]][0])' "$1"
}
is "$(state "$V003")" testing "003 is still testing: the plan waits for the toy stage"
out=$(lorebot --db "$DB" record --version "$V003" --stage nope "$RESULTS/check-003.json" 2>&1)
like "$out" "unknown stage 'nope' \\(apply, check, build, boot, toy\\)" \
	"lorebot record knows the toy stage"
echo '{"findings": {}}' >"$TMP/bad.json"
out=$(lorebot --db "$DB" record --version "$V003" --stage toy "$TMP/bad.json" 2>&1)
like "$out" "toy result: 'findings' is not a list" "its document is checked against its contract"
is "$(sql "SELECT count(*) FROM results WHERE stage = 'toy'")" 0 "and refused"

# -- its command, run by the job runner as the daemon runs a stage
mkdir -p "$TMP/repo"
sql "INSERT INTO jobs (kind, version, arch, queued) VALUES ('toy', '$V003', '', 0)"
id=$(sql "SELECT id FROM jobs WHERE kind = 'toy'")
lorebot --db "$DB" job run "$id" --repo "$TMP/repo" >"$TMP/job.out" 2>&1
is "$?" 0 "lorebot job run runs the toy stage" || cat "$TMP/job.out" >&2
is "$(sql "SELECT state FROM jobs WHERE id = $id")" done "its job is done"
is "$(sql "SELECT status || ' (' || summary || ') ' || findings FROM results
	WHERE version = '$V003' AND stage = 'toy'")" "warnings (3 long subjects) 3" \
	"its result recorded and summed up by its summariser"
like "$(sql "SELECT json FROM results WHERE stage = 'toy'")" '"rule":"toy-subject"' \
	"as the document its command printed"
is "$(state "$V003")" findings "003's plan ended: its state says what was found"

# -- the reply shows it: a section after the review's
report_conf reply.clean=true core.dashboardurl=http://dash.invalid/
db_keep
dry_split
M=$TMP/mail-20260207081613.588598-1-vernon2gm
is "$(head -n 1 "$M")" check "003's reply: headed by the review's findings"
like "$(cat "$M")" 'Findings of toy, each marked ">>":' "with a section for the toy stage"
ok "its result's summary" grep -qx 'toy (3 long subjects):' "$M"
is "$(grep -c '^>> warning: a subject of [0-9]* characters (at most 60): \[PATCH .*\.\.\. \[toy-subject\] \[id [0-9a-f]\{8\}\]$' "$M")" \
	3 "its three findings, with their ids"
like "$(cat "$M")" "lorebot toy --repo linux --mbox " "and its command to reproduce them"
# with a clean review, the toy stage's findings head the reply
echo '{"findings": []}' >"$TMP/clean.json"
lorebot --db "$DB" record --version "$V003" --stage check "$TMP/clean.json" >/dev/null
dry_split
is "$(head -n 1 "$M")" findings "alone, they head a reply of their own kind"
like "$(cat "$M")" "ran toy on this series and has findings" "in the words of its template"
id=$(grep -o '\[id [0-9a-f]*\]' "$M" | head -n 1 | tr -d '[]' | cut -d' ' -f2)
ok "its finding has an id" test -n "$id"

# -- the dashboard shows it
fresh
serve_start
curl -sf "$WEB/series/$S003" >"$TMP/series.html"
like "$(cat "$TMP/series.html")" '<dt>toy</dt><dd><span class="b s-warn" title="3 long subjects">warnings</span> 3 long subjects</dd>' \
	"the series page: the toy stage's line"
like "$(cat "$TMP/series.html")" "toy-subject\\]</span> <span class=\"muted\">id $id</span>" \
	"and its findings under the patches, with their ids"
curl -sf "$WEB/" >"$TMP/index.html"
like "$(cat "$TMP/index.html")" 'title="applied on mm-new \(065ab801c937\)">applied</span> <span class="b s-warn" title="3 long subjects">warnings</span></td>' \
	"the index: its badge beside apply's"
curl -sf "$WEB/api/series?limit=0" | $PY -c '
import json, sys
v = [v for v in json.load(sys.stdin)["series"] if v["id"] == sys.argv[1]][0]
print(v["results"]["toy"]["summary"])' "$V003" >"$TMP/api.out"
is "$(cat "$TMP/api.out")" "3 long subjects" "the API: its result"
serve_stop

# -- the source tree itself was not touched
git -C "$LOREBOT_SRC" ls-files | LC_ALL=C sort >"$TMP/files.after"
ok "the source tree has no toy stage" cmp -s "$TMP/files.before" "$TMP/files.after"
ok "nor its objects" test ! -e "$B/bot/stage/stage-toy.o"

done_testing

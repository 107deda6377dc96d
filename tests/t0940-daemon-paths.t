#!/bin/sh
# The README's own forms: a database and a configuration named relative to
# the current directory (--db mm.db, --config lorebot.conf), with sandboxed
# jobs; the daemon, its job runners and their stages find both.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"

S=$TMP/state
mkdir -p "$S"
mm_clone "$S/mm.git"
gen_series paths >"$S/series.mbox"
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox build.sandbox=true \
	check.checkpatch=false lore.retries=0
cp "$CONF" "$S/lorebot.conf"
# the lore is not there: the versions come from the mbox, the fetch fails
DEAD=http://127.0.0.1:$(free_port)/linux-mm/
cd "$S" || exit 1
lorebot --db mm.db fetch --mbox series.mbox --list linux-mm >/dev/null
is "$?" 0 "fetch --mbox into mm.db (no directory in the name)"
timeout 300 "$LOREBOT" --db mm.db --config lorebot.conf daemon --url "$DEAD" \
	--repo mm.git --outbox outbox --arch '' --once 2>"$TMP/d.err"
is "$?" 0 "daemon --db mm.db --config lorebot.conf --once exits 0"
DB=$S/mm.db
V=$(sql "SELECT id FROM versions WHERE title = 'mm: the paths series'")
is "$(sql "SELECT group_concat(kind || ':' || state, ',') FROM (SELECT kind, state FROM jobs
	WHERE version = '$V' ORDER BY id)")" "apply:done,check:done,reply:done" \
	"apply, check and reply ran"
is "$(sql "SELECT status FROM results WHERE version = '$V' AND stage = 'apply'")" applied \
	"the sandboxed apply read the relative configuration and wrote its result"
is "$(sql "SELECT count(*) FROM jobs WHERE error LIKE '%no JSON%'")" 0 "no stage 'printed no JSON'"
ok "the job directories are next to the database" test -d "$S/jobs"
done_testing

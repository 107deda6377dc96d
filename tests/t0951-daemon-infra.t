#!/bin/sh
# Infrastructure outcomes are recorded, not thrown away: a stage that
# exits 3 with a document of an infrastructure failure (here apply, on a
# repository that has no base to apply to) is queued again until its
# last attempt, then its result is stored as "infra" with the reason;
# the version still ends (check, reply), its state is "infra" in status,
# /metrics and the dashboard say so, and by the default policy nothing
# is mailed about it.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"

lore_conf daemon.window=0 daemon.attempts=2 boot.enable=false reply.mode=outbox \
	reply.clean=true check.checkpatch=false lore.retries=0
DB=$TMP/lorebot.db
OUT=$TMP/outbox
git init -q --bare "$TMP/empty.git"
gen_series infra >"$TMP/series.mbox"
lorebot --db "$DB" fetch --mbox "$TMP/series.mbox" --list linux-mm >/dev/null
V=$(sql "SELECT id FROM versions WHERE title = 'mm: the infra series'")
timeout 300 "$LOREBOT" --db "$DB" --config "$CONF" daemon \
	--url "http://127.0.0.1:$(free_port)/linux-mm/" --repo "$TMP/empty.git" \
	--outbox "$OUT" --arch '' --once 2>"$TMP/d.err"
is "$?" 0 "daemon --once exits 0"
is "$(sql "SELECT state || ':' || attempts FROM jobs WHERE kind = 'apply'")" "failed:2" \
	"apply failed after its 2 attempts"
is "$(sql "SELECT status FROM results WHERE version = '$V' AND stage = 'apply'")" infra \
	"its result is stored as infra"
like "$(sql "SELECT summary FROM results WHERE version = '$V' AND stage = 'apply'")" \
	"no base to apply to" "with the reason"
is "$(sql "SELECT group_concat(kind || ':' || state, ',') FROM (SELECT kind, state FROM jobs
	WHERE version = '$V' ORDER BY id)")" "apply:failed,check:done,reply:done" \
	"the version still ends: check and reply ran"
lorebot --db "$DB" status --json >"$TMP/status.json"
is "$(json "$TMP/status.json" "d['recent'][0]['state']")" infra "status: the version is infra"
is "$(find "$OUT" -type f 2>/dev/null | wc -l | tr -d ' ')" 0 "nothing mailed about it"
# the attempt queued again, then the infra result: the state kept with it
is "$(sql "SELECT state FROM version_states WHERE version = '$V'")" infra "the state kept: infra"
ok "the kept states are those the results derive to (db check)" \
	lorebot --db "$DB" --config "$CONF" db check --arch ''
like "$(cat "$TMP/d.err")" "infrastructure failure recorded" "the log says so"
PORT=$(free_port)
"$LOREBOT" --db "$DB" serve --listen "127.0.0.1:$PORT" >"$TMP/serve.out" 2>&1 &
WEB_PID=$!
cleanup_add "kill $WEB_PID"
i=0
until curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" || [ $i -gt 200 ]; do
	i=$((i + 1))
	sleep 0.05
done
like "$(curl -sf "http://127.0.0.1:$PORT/metrics")" 'lorebot_series_versions\{state="infra"\} 1' \
	"/metrics counts it as infra"
like "$(curl -sf "http://127.0.0.1:$PORT/")" 'data-state="infra"' "the dashboard shows it as infra"
done_testing

#!/bin/sh
# daemon.executor = slurm against a real Slurm started here (munged,
# slurmctld and slurmd on 127.0.0.1, tests/slurm-lab.sh), without kernel
# builds: the light stages apply and check are routed to Slurm
# (slurm.stages), the replies stay in the daemon.
# - the replies are those of the local executor, every job submitted once
#   and its result recorded once, the jobs table says where each ran;
# - kill -9 of the daemon while its jobs are in Slurm (held there with
#   slurm.flags = --hold), one of them ending while the daemon is away:
#   the next start reattaches both, submits neither again, records each
#   result once;
# - a v2 arriving while v1's job waits in Slurm cancels it (scancel).
# The version with real builds and boots on Slurm is t0961 (kernels).
# schedule: middle 2.0 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
. "$LOREBOT_SRC/tests/slurm-lib.sh"
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"
slurm_setup 2

DEAD=http://127.0.0.1:$(free_port)/linux-mm/
R=$TMP/mm.git
mm_clone "$R"
for n in 1 2; do
	gen_series "slurm$n" 1 2 "$((1767225600 + n * 60))"
done >"$TMP/series.mbox"

# conf FILE [KEY=VAL...]: the common configuration, then the overrides
conf() {
	_f=$1
	shift
	CONF=$_f lore_conf daemon.window=0 boot.enable=false reply.mode=outbox \
		check.checkpatch=false lore.retries=0 daemon.light=2 reply.clean=true "$@"
}
conf "$TMP/local.conf"
conf "$TMP/slurm.conf" daemon.executor=slurm slurm.pollinterval=200ms
git config -f "$TMP/slurm.conf" --add slurm.stages apply
git config -f "$TMP/slurm.conf" --add slurm.stages check
cp "$TMP/slurm.conf" "$TMP/held.conf"
git config -f "$TMP/held.conf" slurm.flags --hold

daemon() {	# CONF [ARGS...]
	_c=$1
	shift
	timeout 300 "$LOREBOT" --db "$DB" --config "$_c" daemon --url "$DEAD" --repo "$R" \
		--outbox "$OUT" --arch '' --once "$@"
}
# how many Slurm jobs each lorebot job of $DB had (by their directories),
# "1 1 1 1" when each was submitted once
submissions() {
	for _j in $(sql "SELECT id FROM jobs WHERE kind IN ('apply', 'check') ORDER BY id"); do
		printf '%s ' "$(slurm_jobs_in "$(dirname "$DB")/jobs/$_j")"
	done
}

# the control: the local executor
mbox_state local
daemon "$TMP/local.conf" 2>"$TMP/local.err"
is "$?" 0 "local: daemon --once exits 0"
WANT=$(replied)
is "$(printf '%s\n' "$WANT" | grep -c 'series: clean/0/sent$')" 2 "local: both versions got replies"

# the same on Slurm
mbox_state slurm
daemon "$TMP/slurm.conf" 2>"$TMP/slurm.err"
is "$?" 0 "slurm: daemon --once exits 0"
is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "slurm: every job done"
is "$(replied)" "$WANT" "slurm: the replies of the local executor"
is "$(sql "SELECT group_concat(kind || ':' || (slurm_job IS NOT NULL) || ':' || coalesce(node, '-'), ' ')
	FROM (SELECT * FROM jobs ORDER BY id)")" \
	"apply:1:lab1 apply:1:lab1 check:1:lab1 check:1:lab1 reply:0:- reply:0:-" \
	"apply and check ran on Slurm (node lab1), the replies here"
is "$(submissions)" "1 1 1 1 " "each job was submitted to Slurm once"
is "$(sql "SELECT count(*) || ' ' || count(DISTINCT version || stage) FROM results")" "4 4" \
	"each result recorded once"
is "$(sql "SELECT max(attempts) FROM jobs")" 1 "no job needed a second attempt"
J=$(sql "SELECT slurm_job FROM jobs WHERE kind = 'apply' ORDER BY id LIMIT 1")
is "$(slurm_state "$J")" COMPLETED "Slurm says the job completed"
like "$(cat "$TMP/slurm.err")" "apply of <[^>]*> submitted to slurm as job $J" "the log names the Slurm job"
# the batch script's exit status is seen first, or Slurm's final state
like "$(cat "$TMP/slurm.err")" "done \\(slurm job [0-9]+ (COMPLETED|ended \\(exit 0\\)) on lab1\\)" \
	"and how the job ended, on which node"
lorebot --db "$DB" job list --json >"$TMP/jobs.json"
is "$(json "$TMP/jobs.json" "[(j['kind'], j['executor'], j['node']) for j in d['jobs']][0]")" \
	"('apply', 'slurm', 'lab1')" "job list says where each job ran"
is "$(cat "$TMP"/slurm/jobs/*/job.log | grep -c 'Sanitizer')" 0 \
	"no sanitizer report from any worker"

# kill -9 while both apply jobs wait in Slurm; one ends while the daemon is away
mbox_state kill
"$LOREBOT" --db "$DB" --config "$TMP/held.conf" daemon --url "$DEAD" --repo "$R" \
	--outbox "$OUT" --arch '' --once 2>"$TMP/kill1.err" &
PID=$!
cleanup_add "kill -9 $PID"
two_held() {
	[ "$(sql "SELECT count(*) FROM jobs WHERE kind = 'apply' AND state = 'running'
		AND slurm_job IS NOT NULL")" = 2 ]
}
ok "both apply jobs were submitted (held)" wait_for 600 two_held
kill -9 "$PID"
wait "$PID" 2>/dev/null
S1=$(sql "SELECT slurm_job FROM jobs WHERE kind = 'apply' ORDER BY id LIMIT 1")
S2=$(sql "SELECT slurm_job FROM jobs WHERE kind = 'apply' ORDER BY id LIMIT 1 OFFSET 1")
is "$(slurm_state "$S1") $(slurm_state "$S2")" "PENDING PENDING" \
	"the daemon is dead, its jobs wait in Slurm"
scontrol release "$S1"
completed() {
	[ "$(slurm_state "$S1")" = COMPLETED ]
}
ok "one of them ran to its end while the daemon was away" wait_for 600 completed
daemon "$TMP/slurm.conf" 2>"$TMP/kill2.err" &
PID=$!
cleanup_add "kill -9 $PID"
reattached() {
	[ "$(grep -c 'reattached to slurm job' "$TMP/kill2.err")" = 2 ]
}
ok "the new daemon reattached both" wait_for 600 reattached
scontrol release "$S2"
wait "$PID"
is "$?" 0 "it exits 0 once everything ended"
is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "every job done"
is "$(submissions)" "1 1 1 1 " "no job was submitted again"
is "$(sql "SELECT group_concat(slurm_job, ' ') FROM (SELECT slurm_job FROM jobs
	WHERE kind = 'apply' ORDER BY id)")" "$S1 $S2" "the apply jobs are the Slurm jobs of before"
is "$(sql "SELECT count(*) || ' ' || count(DISTINCT version || stage) FROM results")" "4 4" \
	"each result recorded once"
is "$(replied)" "$WANT" "the replies of a run that was never killed"
unlike "$(cat "$TMP/kill2.err")" "interrupted" "no job was counted as interrupted"

# a v2 while v1's apply waits in Slurm: v1's job is cancelled
lab_setup
DB=$TMP/super/lorebot.db
OUT=$TMP/super/outbox
mkdir -p "$TMP/super"
cp "$TMP/held.conf" "$TMP/super.conf"
git config -f "$TMP/super.conf" list.linux-mm.pollinterval 1s
# the lab's threads arrive in the same fetch as frob v1 and their jobs,
# held in Slurm, would take every light slot: jobs go by arrival, not Date:
git config -f "$TMP/super.conf" daemon.light 8
make_series "$TMP/mail" frob 1
deliver_dir "$TMP/mail/frob-v1"
"$LOREBOT" --db "$DB" --config "$TMP/super.conf" daemon --url "$URL" --repo "$R" \
	--outbox "$OUT" --arch '' 2>"$TMP/super.err" &
PID=$!
cleanup_add "kill -9 $PID"
frob_held() {
	[ -n "$(sql "SELECT j.slurm_job FROM jobs j JOIN versions v ON v.id = j.version
		WHERE v.title = 'mm: the frob series' AND j.kind = 'apply' AND j.state = 'running'
		AND j.slurm_job IS NOT NULL")" ]
}
ok "v1's apply job waits in Slurm" wait_for 600 frob_held
S=$(sql "SELECT j.slurm_job FROM jobs j JOIN versions v ON v.id = j.version
	WHERE v.title = 'mm: the frob series' AND v.version = 1 AND j.kind = 'apply'")
lorebot --db "$DB" status >"$TMP/status.txt"
like "$(cat "$TMP/status.txt")" "running: job [0-9]+ apply  <[^>]*>, .*, slurm job $S \\(queued\\)" \
	"status says where it is: queued in Slurm"
lorebot --db "$DB" status --json >"$TMP/status.json"
is "$(json "$TMP/status.json" "[(r['executor'], r['slurm_job']) for r in d['running'] if r['slurm_job'] == $S]")" \
	"[('slurm', $S)]" "status --json: executor and Slurm job"
PORT=$(free_port)
"$LOREBOT" --db "$DB" serve --listen "127.0.0.1:$PORT" >"$TMP/serve.out" 2>&1 &
WEB_PID=$!
cleanup_add "kill $WEB_PID"
wait_for 200 curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz"
like "$(curl -sf "http://127.0.0.1:$PORT/metrics")" \
	"lorebot_job_running\\{id=\"[0-9]+\",kind=\"apply\",arch=\"\",executor=\"slurm\",slurm_job=\"$S\",node=\"\"\\} 1" \
	"/metrics: the running job, on Slurm, no node yet"
kill "$WEB_PID"
make_series "$TMP/mail" frob 2
deliver_dir "$TMP/mail/frob-v2"
v1_cancelled() {
	[ "$(sql "SELECT j.state || ':' || j.error FROM jobs j JOIN versions v ON v.id = j.version
		WHERE v.title = 'mm: the frob series' AND v.version = 1 AND j.kind = 'apply'")" = \
		cancelled:superseded ]
}
ok "v2 arrived: v1's job is cancelled, superseded" wait_for 600 v1_cancelled
is "$(slurm_state "$S")" CANCELLED "and Slurm cancelled it"
like "$(cat "$TMP/super.err")" "superseded; cancelling slurm job $S" "the log says so"
kill -TERM "$PID"
wait "$PID"
is "$?" 0 "SIGTERM stops the daemon, exit 0"
like "$(cat "$TMP/super.err")" "stopped" "it stopped"
LEFT=$(sql "SELECT slurm_job FROM jobs WHERE state = 'running' AND slurm_job IS NOT NULL")
ok "jobs were running in Slurm when it stopped" test -n "$LEFT"
is "$(for s in $LEFT; do slurm_state "$s"; done | sort -u)" PENDING \
	"they are left in Slurm for the next start (a stop cancels nothing there)"
scancel --me
done_testing

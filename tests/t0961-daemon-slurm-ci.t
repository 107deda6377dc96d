#!/bin/sh
# The acceptance of the Slurm executor with real kernels: a series goes
# through apply, check, build and boot on x86_64, arm64 and riscv with
# daemon.executor = slurm (builds and boots on a Slurm started here,
# tests/slurm-lab.sh), and its results and replies are the local
# executor's (run on x86_64: arm64's and riscv's are the same as its;
# t0910 runs the local executor on the three), though the daemon was
# killed with -9 while the first build
# ran in Slurm, and started again: the running build is reattached, not
# submitted again, and its result is recorded once (one Slurm run of the
# series, not a second one of the same commits to kill); a v2 arriving
# while v1's builds wait in Slurm cancels them.  It builds and boots kernels (the base build directories are
# cached); t0960 is the same without kernels.
# schedule: last 6.0 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
. "$LOREBOT_SRC/tests/boot-lib.sh"
. "$LOREBOT_SRC/tests/slurm-lib.sh"
boot_need_all
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"
slurm_setup

ARCHS=x86_64,arm64,riscv
DEAD=http://127.0.0.1:$(free_port)/linux-mm/
R=$TMP/mm.git
mm_clone "$R"
gen_series slurmci 1 2 >"$TMP/series.mbox"

# the lore is dead until the v2 part: one failed poll a minute, not a second
conf() {
	_f=$1
	shift
	CONF=$_f lore_conf daemon.window=0 reply.mode=outbox check.checkpatch=false \
		lore.retries=0 lore.backoffmax=1m reply.clean=true "$@"
}
conf "$TMP/local.conf"
# build.jobs (2) CPUs per build on a node of nproc CPUs: one build at a
# time runs, the others wait in Slurm
conf "$TMP/slurm.conf" daemon.executor=slurm slurm.pollinterval=1s slurm.maxjobs=3

daemon() {	# CONF [ARGS...]
	_c=$1
	shift
	timeout 7200 "$LOREBOT" --db "$DB" --config "$_c" daemon --url "$DEAD" --repo "$R" \
		--outbox "$OUT" --arch "$ARCHS" --once "$@"
}
# outcome [ARCH]: the results (the light stages and those of ARCH only)
# and the replies
outcome() {
	sql "SELECT group_concat(stage || ':' || arch || ':' || status || ':' || findings, ' ')
		FROM (SELECT * FROM results WHERE '${1:-}' = '' OR arch IN ('', '${1:-}')
		ORDER BY stage, arch)"
	sql "SELECT group_concat(kind || '/' || patch || '/' || state, ' ')
		FROM (SELECT * FROM replies ORDER BY kind, patch)"
}

# the local executor's outcome, on x86_64 (that of the other arches is
# the same: the series builds and boots everywhere)
mbox_state local
ARCHS=x86_64
daemon "$TMP/local.conf" 2>"$TMP/local.err"
is "$?" 0 "local: daemon --once exits 0"
ARCHS=x86_64,arm64,riscv
WANT=$(outcome x86_64)
is "$(sql "SELECT group_concat(stage || ':' || arch || ':' || status, ' ') FROM
	(SELECT * FROM results WHERE stage IN ('build', 'boot') ORDER BY stage)")" \
	"boot:x86_64:ok build:x86_64:ok" "local: built and booted on x86_64"

# the same series on Slurm, killed with -9 while its first build runs
# there, and started again: one run builds and boots what the local
# executor did, a second one of the same commits would only do it again
mbox_state slurm
"$LOREBOT" --db "$DB" --config "$TMP/slurm.conf" daemon --url "$DEAD" --repo "$R" \
	--outbox "$OUT" --arch "$ARCHS" --once 2>"$TMP/kill1.err" &
PID=$!
cleanup_add "kill -9 $PID"
build_running() {
	_s=$(sql "SELECT slurm_job FROM jobs WHERE kind = 'build' AND state = 'running'
		AND slurm_job IS NOT NULL ORDER BY id LIMIT 1")
	[ -n "$_s" ] && [ "$(slurm_state "$_s")" = RUNNING ]
}
ok "a build runs in Slurm" wait_for 36000 build_running
J=$(sql "SELECT id FROM jobs WHERE kind = 'build' AND state = 'running' ORDER BY id LIMIT 1")
S=$(sql "SELECT slurm_job FROM jobs WHERE id = $J")
kill -9 "$PID"
wait "$PID" 2>/dev/null
daemon "$TMP/slurm.conf" 2>"$TMP/slurm.err"
is "$?" 0 "after the kill, daemon --once exits 0"
like "$(cat "$TMP/slurm.err")" "job $J: build [a-z0-9_]+ of <[^>]*>: reattached to slurm job $S" \
	"the running build was reattached"
is "$(slurm_jobs_in "$TMP/slurm/jobs/$J")" 1 "it was not submitted again"
is "$(sql "SELECT slurm_job || ':' || state || ':' || attempts FROM jobs WHERE id = $J")" \
	"$S:done:1" "its result came from that Slurm job, first attempt"
is "$(outcome x86_64)" "$WANT" \
	"the results and replies of the local executor, of a run never killed (each recorded once)"
for a in arm64 riscv; do
	is "$(outcome $a)" "$(printf '%s\n' "$WANT" | sed "s/x86_64/$a/g")" \
		"... and on $a, what the local executor gave on x86_64"
done
is "$(sql "SELECT count(*) FROM results WHERE stage IN ('build', 'boot')")" 6 \
	"each of the three arches built and booted once"
is "$(sql "SELECT group_concat(kind || ':' || (slurm_job IS NOT NULL), ' ') FROM
	(SELECT * FROM jobs WHERE kind IN ('build', 'boot') ORDER BY kind, arch)")" \
	"boot:1 boot:1 boot:1 build:1 build:1 build:1" "every build and boot ran on Slurm"
is "$(for j in $(sql "SELECT id FROM jobs WHERE kind = 'build' ORDER BY id"); do
	printf '%s:%s ' "$(slurm_jobs_in "$TMP/slurm/jobs/$j")" \
		"$(sql "SELECT attempts FROM jobs WHERE id = $j")"; done)" "1:1 1:1 1:1 " \
	"each build ran in one Slurm job, at its first attempt, across the kill"
is "$(sql "SELECT group_concat(DISTINCT node) FROM jobs WHERE slurm_job IS NOT NULL")" lab1 \
	"on node lab1"

# v2 while v1's builds wait in Slurm: three builds, one runs, two wait
ARCHS=x86_64,arm64,riscv
lab_setup "$FIXTURES/daemon/not-a-patch.mbox"
DB=$TMP/super/lorebot.db
OUT=$TMP/super/outbox
mkdir -p "$TMP/super"
cp "$TMP/slurm.conf" "$TMP/super.conf"
git config -f "$TMP/super.conf" list.linux-mm.pollinterval 2s
make_series "$TMP/mail" frob 1
deliver_dir "$TMP/mail/frob-v1"
"$LOREBOT" --db "$DB" --config "$TMP/super.conf" daemon --url "$URL" --repo "$R" \
	--outbox "$OUT" --arch "$ARCHS" 2>"$TMP/super.err" &
PID=$!
cleanup_add "kill -9 $PID"
v1_waiting() {
	[ "$(sql "SELECT count(*) FROM jobs WHERE kind = 'build' AND state = 'running'
		AND slurm_job IS NOT NULL")" -ge 2 ]
}
ok "v1's builds are in Slurm, some of them waiting" wait_for 36000 v1_waiting
V1=$(sql "SELECT id FROM versions WHERE title = 'mm: the frob series' AND version = 1")
IDS=$(sql "SELECT slurm_job FROM jobs WHERE version = '$V1' AND state = 'running'
	AND slurm_job IS NOT NULL")
make_series "$TMP/mail" frob 2
deliver_dir "$TMP/mail/frob-v2"
v1_over() {
	[ "$(sql "SELECT count(*) FROM jobs WHERE version = '$V1' AND state IN ('running', 'queued')")" = 0 ]
}
ok "v2 arrived: none of v1's jobs runs or waits" wait_for 6000 v1_over
is "$(sql "SELECT group_concat(DISTINCT state || ':' || error) FROM jobs WHERE version = '$V1'
	AND kind = 'build' AND state != 'done'")" cancelled:superseded "v1's builds were cancelled"
is "$(for s in $IDS; do slurm_state "$s"; done | sort -u | grep -vx COMPLETED)" CANCELLED \
	"Slurm cancelled those that had not ended"
kill -TERM "$PID"
wait "$PID"
scancel --me
done_testing

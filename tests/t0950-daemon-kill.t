#!/bin/sh
# The pipeline survives any kill: what a version still needs is derived
# from its stored results at every start.  First the deterministic case
# (a job run by hand, "lorebot job run", recorded done behind the
# daemon's back: the next start queues what follows it); then a campaign
# of SIGKILLs at random instants over whole pipelines (light stages),
# after which every version is complete, its replies are those of a run
# that was never killed, none filed twice, and the database is intact.
#   KILLS   how many kills (default 50)
# schedule: middle 3.1 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"

KILLS=${KILLS:-50}
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox check.checkpatch=false \
	lore.retries=0 daemon.light=2 reply.clean=true
# no lore: the versions come from an mbox, every fetch fails at once
DEAD=http://127.0.0.1:$(free_port)/linux-mm/
R=$TMP/mm.git
mm_clone "$R"
for n in 1 2; do
	gen_series "kill$n" 1 2 "$((1767225600 + n * 60))"
done >"$TMP/series.mbox"

daemon() {
	timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$DEAD" --repo "$R" \
		--outbox "$OUT" --arch '' --once "$@"
}
# the same, to be killed: the daemon itself is the background job
daemon_bg() {
	exec "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$DEAD" --repo "$R" \
		--outbox "$OUT" --arch '' --once
}
mails() {
	find "$OUT" -type f 2>/dev/null | wc -l | tr -d ' '
}

# the control: never killed
mbox_state control
daemon 2>"$TMP/control.err"
is "$?" 0 "control: daemon --once exits 0"
is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "control: every job done"
WANT=$(replied)
WANT_MAILS=$(mails)
ok "control: replies were filed ($WANT_MAILS)" test "$WANT_MAILS" -gt 0

# the deterministic case: a queued apply job, run by hand; then the daemon
mbox_state manual
V=$(sql "SELECT id FROM versions WHERE title = 'mm: the kill1 series'")
sql "INSERT INTO jobs (kind, version, queued) VALUES ('apply', '$V', 0)"
J=$(sql "SELECT id FROM jobs WHERE version = '$V'")
lorebot --db "$DB" --config "$CONF" job run "$J" --repo "$R" --outbox "$OUT" >/dev/null 2>&1
is "$?" 0 "job run: the apply job ran by hand"
is "$(sql "SELECT state FROM jobs WHERE id = $J")" done "and is done"
is "$(sql "SELECT count(*) FROM jobs WHERE version = '$V'")" 1 "nothing follows it yet"
daemon 2>"$TMP/manual.err"
is "$?" 0 "daemon --once after it exits 0"
is "$(sql "SELECT group_concat(kind || ':' || state, ',') FROM (SELECT kind, state FROM jobs
	WHERE version = '$V' ORDER BY id)")" "apply:done,check:done,reply:done" \
	"the daemon queued check and reply after the apply it did not run"
is "$(replied)" "$WANT" "every version got the control's replies"

# the campaign: SIGKILL at random instants (shorter ones more often) over
# the pipeline; a dead daemon's runners die with it.  A state that
# completes is checked and the next kills start over on a fresh one; so
# is one that took HITS kills (below the daemon's cap of 10 interruptions
# of one job, after which the job fails on purpose), after a last daemon
# run that must finish it.
HITS=${HITS:-5}
mbox_state campaign
# the window: how long the pipeline takes, to the 10 ms (whole seconds
# plus one made a pipeline of 1.1 s a window of 2-3 s, and most kills
# fell after the daemon had finished)
start=$(date +%s.%N)
daemon 2>/dev/null
span=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
complete() {
	[ "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" = 0 ] &&
		[ "$(replied)" = "$WANT" ]
}
fresh() {
	rm -rf "$TMP/campaign"
	mbox_state campaign
}
verify() {
	rounds=$((rounds + 1))
	if ! complete || [ "$(mails)" != "$WANT_MAILS" ] ||
	   [ "$(sql "PRAGMA integrity_check")" != ok ]; then
		bad=$((bad + 1))
		diag "round $rounds: $(mails) mails, $(sql "SELECT group_concat(kind || ':' || state || ' ' || ifnull(error, ''), ', ') FROM jobs WHERE state != 'done'"), $(sql "PRAGMA integrity_check")"
	fi
	fresh
	hits=0
}
fresh
i=0 killed=0 rounds=0 bad=0 hits=0
while [ "$i" -lt "$KILLS" ]; do
	i=$((i + 1))
	wait_s=$(awk -v s="$i$$" -v d="$span" 'BEGIN { srand(s); r = rand(); printf "%.2f", r * r * d }')
	daemon_bg 2>>"$TMP/campaign.err" &
	pid=$!
	sleep "$wait_s"
	kill -9 "$pid" 2>/dev/null && killed=$((killed + 1)) && hits=$((hits + 1))
	wait "$pid" 2>/dev/null
	if complete; then
		verify
	elif [ "$hits" -ge "$HITS" ]; then
		daemon 2>>"$TMP/campaign.err"
		verify
	fi
done
diag "$KILLS kills, $killed of them while the daemon ran (window ${span}s), $rounds pipelines checked"
ok "most kills hit a running daemon" test "$killed" -ge $((KILLS / 2))
is "$bad" 0 "every pipeline, finished under the kills or by a run after them, has the control's replies, once, and is intact"
daemon 2>>"$TMP/campaign.err"
is "$?" 0 "after the last kill, daemon --once exits 0"
is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "every job done"
is "$(replied)" "$WANT" "every version complete, with the control's replies"
is "$(mails)" "$WANT_MAILS" "no reply filed twice"
is "$(sql "PRAGMA integrity_check")" ok "the database is intact"
# every result was recorded with its version's state, kills or not
ok "the kept states are those the results derive to (db check)" \
	lorebot --db "$DB" --config "$CONF" db check --arch ''
done_testing

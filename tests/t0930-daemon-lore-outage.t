#!/bin/sh
# The local lore goes away for a while and comes back: the daemon logs the
# failures, backs off instead of hammering, stops at once on SIGTERM while
# the lore is down, and once the lore is back a new daemon catches up with
# everything posted meanwhile; nothing is missed.
# schedule: middle 3.6 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"

lab_setup
R=$TMP/mm.git
mm_clone "$R"
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox \
	list.linux-mm.pollinterval=1s lore.retries=0 lore.retrydelay=500ms lore.backoffmax=4s \
	lore.timeout=3s
"$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" --repo "$R" \
	--outbox "$TMP/outbox" --arch '' 2>"$TMP/daemon.err" &
DPID=$!
cleanup_add "kill -9 $DPID 2>/dev/null"
wait_sql() {
	_end=$(($(date +%s) + $1))
	until [ "$(sql "$2" 2>/dev/null)" = 1 ]; do
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.5
	done
}
ok "the fixture threads are fetched and tested" \
	wait_sql 300 "SELECT count(*) > 0 AND sum(state IN ('queued', 'running')) = 0 FROM jobs"
n0=$(sql "SELECT count(*) FROM messages")

# the lore goes down; two series are posted while it is
"$LORE_LAB" stop "$LAB"
make_series "$TMP/mail" down 1
make_series "$TMP/mail" later 1
deliver_dir "$TMP/mail/down-v1"
sleep 12
deliver_dir "$TMP/mail/later-v1"
fails=$(grep -c 'fetch failed' "$TMP/daemon.err")
ok "the daemon logs the failed fetches ($fails)" test "$fails" -ge 2
# seconds from the first failure to the last
first=$(grep 'fetch failed' "$TMP/daemon.err" | head -1 | cut -c1-20)
last=$(grep 'fetch failed' "$TMP/daemon.err" | tail -1 | cut -c1-20)
span=$(($(date -d "$last" +%s) - $(date -d "$first" +%s)))
like "$(cat "$TMP/daemon.err")" "fetch failed \([0-9]+ in a row\): .*backing off, next attempt in [0-9]+s" \
	"each failure says how long it backs off"
# polled every second, $span s down would be $span attempts without backoff;
# with it (doubling up to lore.backoffmax = 4 s) about a third of that
ok "it backs off: $fails attempts in $span s" test "$fails" -le $((span / 2 + 4))
ok "the daemon is still running" kill -0 "$DPID"

# SIGTERM while the lore is down: the daemon stops (exit 0) instead of
# waiting out its back-off or a fetch; a new one carries on
t0=$(date +%s.%N)
kill -TERM "$DPID"
i=0
while kill -0 "$DPID" 2>/dev/null && [ $i -lt 400 ]; do
	i=$((i + 1))
	sleep 0.05
done
if kill -0 "$DPID" 2>/dev/null; then
	ok "SIGTERM during the outage stops the daemon" false
	kill -9 "$DPID"
else
	ok "SIGTERM during the outage stops the daemon" true
fi
wait "$DPID"
is "$?" 0 "and it exits 0"
diag "it stopped $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s after SIGTERM (polled every 0.05 s)"
"$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" --repo "$R" \
	--outbox "$TMP/outbox" --arch '' 2>>"$TMP/daemon.err" &
DPID=$!
cleanup_add "kill -9 $DPID 2>/dev/null"

# the lore comes back
"$LORE_LAB" start "$LAB" >/dev/null
r0=$(requests)
ok "both series posted during the outage are fetched" \
	wait_sql 60 "SELECT count(*) = 2 FROM versions WHERE title IN ('mm: the down series', 'mm: the later series') AND complete"
ok "and tested through to the reply" \
	wait_sql 120 "SELECT count(*) = 2 FROM jobs j JOIN versions v ON v.id = j.version
		WHERE v.title IN ('mm: the down series', 'mm: the later series') AND j.kind = 'reply'
		AND j.state = 'done'"
is "$(( $(sql "SELECT count(*) FROM messages") - n0 ))" 6 "the six new mails (two covers, four patches) are all stored"
ok "no request storm after the outage: $(( $(requests) - r0 )) requests" \
	test $(( $(requests) - r0 )) -le 40
kill "$DPID"
wait "$DPID"
is "$?" 0 "SIGTERM: the daemon exits 0"
like "$(tail -3 "$TMP/daemon.err")" "stop|exit" "and says so"
done_testing

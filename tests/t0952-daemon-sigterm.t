#!/bin/sh
# Nothing slow in the daemon's loop: with a lore that accepts connections
# and never answers (a fetch that would hang for lore.timeout, 10 minutes
# here), the fetch is a child of the daemon; SIGTERM stops the daemon at
# once all the same, exit status 0, and the hung fetch goes with it (its
# connection is closed).  And the fetch's own timeout, daemon.fetchtimeout.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

lore_conf lore.timeout=10m lore.retries=0
DB=$TMP/lorebot.db
git init -q --bare "$TMP/repo.git"
PORT=$(free_port)
# the black hole: accepts, reads, never answers; says when a peer goes away
"$PY" "$LOREBOT_SRC/tests/black-hole.py" "$PORT" "$TMP/hole.log" &
HOLE=$!
cleanup_add "kill $HOLE"

"$LOREBOT" --db "$DB" --config "$CONF" daemon --url "http://127.0.0.1:$PORT/linux-mm/" \
	--repo "$TMP/repo.git" --arch '' 2>"$TMP/d.err" &
D=$!
cleanup_add "kill -9 $D"
i=0
until grep -q accepted "$TMP/hole.log" 2>/dev/null || [ $i -gt 600 ]; do
	i=$((i + 1))
	sleep 0.05
done
ok "the fetch is waiting on the silent lore" grep -q accepted "$TMP/hole.log"
kill -TERM "$D"
# bounded: a daemon blocked in the fetch would not exit for 10 minutes
i=0
while kill -0 "$D" 2>/dev/null && [ $i -lt 400 ]; do
	i=$((i + 1))
	sleep 0.05
done
if kill -0 "$D" 2>/dev/null; then
	fails=1
	kill -9 "$D"
else
	fails=0
fi
is "$fails" 0 "SIGTERM stops the daemon while its fetch hangs"
wait "$D"
is "$?" 0 "it exits 0"
i=0
until grep -q closed "$TMP/hole.log" || [ $i -gt 200 ]; do
	i=$((i + 1))
	sleep 0.05
done
ok "the hung fetch went with it" grep -q closed "$TMP/hole.log"
like "$(cat "$TMP/d.err")" "stopped" "the log says it stopped"

# the fetch child has a timeout of its own (daemon.fetchtimeout): the
# hung fetch is killed, the daemon backs off and goes on
git config -f "$CONF" daemon.fetchtimeout 2s
"$LOREBOT" --db "$DB" --config "$CONF" daemon --url "http://127.0.0.1:$PORT/linux-mm/" \
	--repo "$TMP/repo.git" --arch '' 2>"$TMP/d2.err" &
D=$!
cleanup_add "kill -9 $D"
i=0
until grep -q "fetch failed" "$TMP/d2.err" || [ $i -gt 600 ]; do
	i=$((i + 1))
	sleep 0.05
done
like "$(cat "$TMP/d2.err")" "linux-mm: fetch failed \(1 in a row\): the fetch timed out after 2 s; backing off" \
	"daemon.fetchtimeout: the hung fetch is killed and counted as a failure"
ok "the daemon goes on" kill -0 "$D"
kill -TERM "$D"
wait "$D"
is "$?" 0 "and stops on SIGTERM"
done_testing

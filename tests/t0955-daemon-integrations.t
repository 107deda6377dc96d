#!/bin/sh
# The daemon with patchwork and KCIDB configured (light stages: no
# builds): its posters killed right after patchwork created a check, then
# the daemon itself killed with SIGKILL at random instants, then a run to
# the end: patchwork (tests/patchwork-fake.py, every request checked
# against its OpenAPI document) holds exactly one check per patch and
# context, none twice; each version's KCIDB document is in kcidb.dir and
# was submitted with the token, valid against the v5.3 schema.
#   KILLS   how many kills of the daemon (default 6)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
. "$LOREBOT_SRC/tests/integrations-lib.sh"
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"

KILLS=${KILLS:-6}
R=$TMP/mm.git
mm_clone "$R"
for n in 1 2; do
	gen_series "pw$n" 1 2 "$((1767225600 + n * 60))"
done >"$TMP/series.mbox"
# no lore: the versions come from the mbox, every fetch fails at once
DEAD=http://127.0.0.1:$(free_port)/linux-mm/
mbox_state run
sql "SELECT msgid FROM patches" |
	$PY -c 'import json, sys; print(json.dumps({l.strip(): 500 + i for i, l in enumerate(sys.stdin)}))' \
	>"$TMP/patches.json"
pw_start
kcidb_start
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox check.checkpatch=false \
	lore.retries=0 daemon.light=2 \
	patchwork.url="http://127.0.0.1:$PW_PORT" patchwork.project=linux-mm \
	patchwork.tokenfile="$TMP/token" patchwork.retrydelay=1s \
	kcidb.dir="$TMP/kcidb" kcidb.url="$KCIDB_URL" kcidb.tokenfile="$TMP/kcidb-token" \
	git.url=https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git
daemon() {
	timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$DEAD" --repo "$R" \
		--outbox "$OUT" --arch '' --once "$@"
}
daemon_bg() {
	exec "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$DEAD" --repo "$R" \
		--outbox "$OUT" --arch '' --once
}

# every poster dies right after patchwork answered: each leaves its check
# "sending", and the next one must find it on patchwork, not post it again
LOREBOT_TEST_CRASH=pw-sent daemon 2>"$TMP/crash.err"
is "$?" 0 "with every poster killed after its POST, daemon --once still ends (exit 0)"
is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "every job done"
N=$(sql "SELECT count(*) FROM pw_checks")
is "$N" 8 "8 checks planned: apply and review on each patch of the two versions"
ok "some were posted, each by a poster killed after it" test "$(pw_checks | $PY -c 'import json, sys; print(len(json.load(sys.stdin)))')" -gt 0
ok "the next poster found the interrupted one on patchwork" test \
	"$(sql "SELECT count(*) FROM pw_checks WHERE reason = 'found on patchwork after an interrupted post'")" -gt 0

# then the daemon itself, killed at random instants while checks are due
sql "UPDATE pw_checks SET next_attempt = 0 WHERE status IN ('queued', 'sending')"
i=0 killed=0
while [ "$i" -lt "$KILLS" ]; do
	i=$((i + 1))
	wait_s=$(awk -v s="$i$$" 'BEGIN { srand(s); printf "%.2f", rand() * 2.5 }')
	LOREBOT_TEST_CRASH=pw-sent daemon_bg 2>>"$TMP/kills.err" &
	pid=$!
	sleep "$wait_s"
	kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
	wait "$pid" 2>/dev/null
done
diag "$KILLS kills, $killed of them while the daemon ran"
daemon 2>"$TMP/last.err"
is "$?" 0 "after the kills, daemon --once exits 0"
is "$(sql "SELECT group_concat(status) FROM (SELECT DISTINCT status FROM pw_checks)")" sent \
	"every check sent"
is "$(pw_per_pair)" "$N $N 1" "patchwork holds $N checks: one per patch and context, none twice"
is "$(pw_invalid)" 0 "every request valid against patchwork's API schema"
is "$(pw_checks | $PY -c 'import json, sys
print(sorted(set(c["context"] for c in json.load(sys.stdin))))')" \
	"['lorebot-apply', 'lorebot-review']" "contexts apply and review (no builds here)"

# KCIDB: each version's document when its pipeline ended
is "$(ls "$TMP/kcidb" | wc -l | tr -d ' ')" 2 "two documents in kcidb.dir, one per version"
is "$($PY "$LOREBOT_SRC/tests/kcidb-validate.py" "$FIXTURES/kcidb/kcidb.v5.3.json" "$TMP"/kcidb/*.json)" \
	"ok 2" "both valid KCIDB v5.3"
kcidb_submissions >"$TMP/subs.json"
is "$(json "$TMP/subs.json" "(len(d) >= 2, all(s['valid'] for s in d))")" "(True, True)" \
	"submitted with the token, every submission valid"
is "$(json "$TMP/subs.json" "sorted(set(c['valid'] for s in d for c in s['doc']['checkouts']))")" \
	"[True]" "the checkouts: applied"
is "$(cat "$TMP"/*.err "$TMP"/run/jobs/*/job.log 2>/dev/null | grep -c 'Sanitizer')" 0 \
	"no sanitizer report from the daemon, its posters or its job runners"
done_testing

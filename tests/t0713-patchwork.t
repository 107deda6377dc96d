#!/bin/sh
# Patchwork checks against a patchwork played on 127.0.0.1
# (tests/patchwork-fake.py), which checks every request lorebot sends
# against patchwork's published OpenAPI document (REST API 1.3) and
# answers as patchwork does: one check per patch and context, the patch
# found by its Message-ID, valid against the schema; exactly once across
# kills between the POST and its record; a patch patchwork does not have
# yet and server errors retried; a refusal final; a token file others can
# read refused.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"
. "$LOREBOT_SRC/tests/integrations-lib.sh"

fill_db
record_all
# the patches patchwork has: every patch of the three versions
sql "SELECT msgid FROM patches WHERE version IN ('$V000', '$V003', '$V004')" |
	$PY -c 'import json, sys; print(json.dumps({l.strip(): 1000 + i for i, l in enumerate(sys.stdin)}))' \
	>"$TMP/patches.json"
pwconf() {
	report_conf patchwork.url="http://127.0.0.1:$PW_PORT" patchwork.project=linux-mm \
		patchwork.tokenfile="$TMP/token" patchwork.retrydelay=1s "$@"
}
post() {
	lorebot --config "$CONF" --db "$DB" patchwork --json "$@" 2>>"$TMP/post.err"
}
pw_start
pwconf
post --series "$V004" >"$TMP/p4.json"
is "$?" 0 "lorebot patchwork --series 004: exit 0"
is "$(json "$TMP/p4.json" "(d['sent'], d['queued'], d['failed'])")" "(8, 0, 0)" \
	"004: eight checks posted (apply and review on each of 4 patches)"
is "$(pw_checks | $PY -c 'import json, sys
for c in json.load(sys.stdin):
    print(c["msgid"].split("-")[1], c["context"], c["state"], c["description"], sep="|")' | sort)" \
"2|lorebot-apply|success|applies to mm-new 065ab801c937
2|lorebot-review|success|no review finding (1 style finding not counted)
3|lorebot-apply|fail|does not apply to mm-new 065ab801c937: arch/arm64/include/asm/tlbflush.h
3|lorebot-review|warning|0 errors, 6 warnings: one-line-args
4|lorebot-apply|warning|not applied: patch 2/4 before it does not apply
4|lorebot-review|success|no review finding
5|lorebot-apply|warning|not applied: patch 2/4 before it does not apply
5|lorebot-review|success|no review finding" \
	"patch by patch: what applied, what did not, what was not tried, the review"
is "$(pw_checks | $PY -c 'import json, sys
print(sorted(set(c["target_url"] for c in json.load(sys.stdin))))')" \
	"['http://127.0.0.1:8080/series/$S004#v3']" "target_url: the version on the dashboard"
is "$(pw_invalid)" 0 "every request valid against patchwork's API schema"
is "$(grep -c '"POST"' "$TMP/pw.log")" 8 "eight POSTs"
ok "to /api/1.3/patches/<id>/checks/" grep -q '"path": "/api/1.3/patches/1[0-9]*/checks/"' "$TMP/pw.log"
post --series "$V004" >"$TMP/p4b.json"
is "$(json "$TMP/p4b.json" "d['sent']")" 0 "again: nothing posted twice"

# killed right after patchwork created the check, before it is recorded:
# the next run finds it on patchwork instead of posting it again
LOREBOT_TEST_CRASH=pw-sent post --series "$V003" >/dev/null
is "$?" 137 "killed between the POST and its record"
is "$(sql "SELECT count(*) FROM pw_checks WHERE version = '$V003' AND status = 'sending'")" 1 \
	"one check left sending"
LOREBOT_TEST_CRASH=pw-sending post --series "$V003" >/dev/null
is "$?" 137 "killed again, this time before the next POST"
post --series "$V003" >"$TMP/p3.json"
is "$?" 0 "the next run"
is "$(sql "SELECT count(*) FROM pw_checks WHERE version = '$V003' AND reason = 'found on patchwork after an interrupted post'")" \
	1 "finds the interrupted one on patchwork"
is "$(sql "SELECT group_concat(status) FROM (SELECT DISTINCT status FROM pw_checks WHERE version = '$V003')")" \
	sent "and every check of 003 is sent"
is "$(sql "SELECT count(*) FROM pw_checks WHERE version = '$V003'")" 28 \
	"28 for 003: apply, review and three builds on each of 5 patches, three boots on the last"
is "$(pw_per_pair)" "36 36 1" "36 checks on patchwork, one per patch and context"

# a patch patchwork has not read yet, and server errors: tried again
pw_stop
pw_start --lag 1 --fail-posts 2
pwconf patchwork.attempts=4
post --series "$V000" >"$TMP/p0.json"
is "$(json "$TMP/p0.json" "(d['sent'], d['queued'], d['failed'])")" "(0, 47, 0)" \
	"000: not on patchwork yet (its first lookups find nothing): all queued again"
like "$(json "$TMP/p0.json" "d['checks'][0]['reason']")" "is not on patchwork \(yet\)" "saying why"
is "$(sql "SELECT count(*) FROM pw_checks WHERE version = '$V000' AND status = 'queued' AND next_attempt > strftime('%s', 'now') - 5")" \
	47 "each to be tried again after patchwork.retrydelay"
due() {
	sql "UPDATE pw_checks SET next_attempt = 0 WHERE status = 'queued'"
}
due
post --series "$V000" >"$TMP/p0c.json"
is "$(json "$TMP/p0c.json" "(d['sent'], d['queued'])")" "(45, 2)" \
	"then: two server errors (5xx) queued again, the rest posted"
due
post --series "$V000" >"$TMP/p0d.json"
is "$(json "$TMP/p0d.json" "(d['sent'], d['queued'], d['failed'])")" "(2, 0, 0)" "and those after them"
is "$(pw_per_pair)" "47 47 1" "47 checks for 000, one per patch and context"
is "$(sql "SELECT count(*) FROM pw_checks WHERE length(target_url) > 200")" 0 \
	"no target_url over 200 characters"
is "$(pw_invalid)" 0 "still no invalid request"

# refused: a wrong token (403) is final; a token file others can read is not used
sql "UPDATE pw_checks SET status = 'queued', attempts = 0 WHERE id = 1"
printf 'not-the-token\n' >"$TMP/token"
post >"$TMP/pr.json"
is "$(json "$TMP/pr.json" "(d['sent'], d['failed'])")" "(0, 1)" "a wrong token: refused, failed for good"
like "$(json "$TMP/pr.json" "d['checks'][0]['reason']")" "HTTP 403" "with patchwork's answer"
sql "UPDATE pw_checks SET status = 'queued' WHERE id = 1"
chmod 644 "$TMP/token"
post >/dev/null
is "$?" 2 "a token file others can read: refused (exit 2)"
like "$(tail -1 "$TMP/post.err")" "patchwork.tokenfile '.*/token' can be read by others" "saying so"
pw_stop

# patchwork.pending: what is still to run is posted as pending first
DB=$TMP/pending.db
fill_db
record "$V003" apply "$RESULTS/apply-003.json"
record "$V003" check "$RESULTS/check-003.json"
pw_start
pwconf patchwork.pending=true
post --series "$V003" >"$TMP/pp.json"
is "$(json "$TMP/pp.json" "sorted(set((c['context'], c['state']) for c in d['checks'] if c['phase'] == 'pending'))")" \
	"[('lorebot-boot-arm64', 'pending'), ('lorebot-boot-riscv', 'pending'), ('lorebot-boot-x86_64', 'pending'), ('lorebot-build-arm64', 'pending'), ('lorebot-build-riscv', 'pending'), ('lorebot-build-x86_64', 'pending')]" \
	"builds and boots not run yet: pending"
is "$(json "$TMP/pp.json" "(d['sent'], len([c for c in d['checks'] if c['phase'] == 'pending']))")" \
	"(28, 18)" "18 pending (3 builds on 5 patches, 3 boots on the last) and 10 final"
record "$V003" build "$RESULTS/build-003.json"
record "$V003" boot "$RESULTS/boot-003.json"
post --series "$V003" >"$TMP/pf.json"
is "$(json "$TMP/pf.json" "(d['sent'], sorted(set(c['state'] for c in d['checks'])))")" "(18, ['success'])" \
	"once built and booted: their final checks"
is "$(pw_per_pair)" "46 28 2" "two checks (pending, then final) for each build and boot context"
is "$(pw_invalid)" 0 "every request valid"
pw_stop

done_testing

#!/bin/sh
# The states the database keeps (version_states, migration report-2) are
# report_state()'s word for every live version after what changes them:
# results recorded and recorded again, a version superseded by a later
# send, results edited by hand, a rebuild, other archs.  `lorebot db
# check` compares them with a full derivation; the dashboard's state
# filter and /metrics read them, and derive every state instead while
# they cannot be trusted.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

check() {
	lorebot --db "$DB" db check "$@" >"$TMP/check.out" 2>"$TMP/check.err"
}

# the states by the dashboard's state filter, against each version's
# state as the API derives it row by row
api_states() {
	curl -sf "$WEB/api/series?limit=0" >"$TMP/all.json" || return 1
	for s in pending incomplete testing apply-failed build-failed boot-failed \
		findings infra base-unknown passed superseded; do
		curl -sf "$WEB/api/series?state=$s&limit=0" >"$TMP/one.json" || return 1
		$PY - "$TMP/all.json" "$TMP/one.json" "$s" <<'EOF' || return 1
import json, sys
derived = sorted(v["id"] for v in json.load(open(sys.argv[1]))["series"]
		 if v["state"] == sys.argv[3])
filtered = json.load(open(sys.argv[2]))
ids = [v["id"] for v in filtered["series"]]
if sorted(ids) != derived or filtered["total"] != len(derived):
	sys.exit("%s: filter %s (total %s), derived %s" % (sys.argv[3], ids, filtered["total"], derived))
EOF
	done
}

metric() {
	curl -sf "$WEB/metrics" | sed -n "s/^lorebot_series_versions{state=\"$1\"} //p"
}

# 003's first send alone: the later one arrives further down
$PY - "$FIXTURES/lore/003_6100bb5053417aef.mbox" "$TMP/003-first.mbox" <<'EOF'
import mailbox, sys
out = mailbox.mbox(sys.argv[2])
for m in mailbox.mbox(sys.argv[1]):
	ids = " ".join(m.get_all(h, [""])[0] or "" for h in ("Message-ID", "In-Reply-To", "References"))
	if "20260207081613" not in ids:
		out.add(m)
out.flush()
EOF
fill_db "$FIXTURES/lore/000_73a05b4700ab1a7a.mbox" "$FIXTURES/lore/004_476fa21b8430df59.mbox" \
	"$TMP/003-first.mbox"
is "$(sql "SELECT count(*) FROM versions WHERE id = '$V003OLD' AND superseded_by IS NULL")" 1 \
	"003's first send, not superseded yet"
is "$(sql "SELECT count(*) FROM version_states_dirty")" 0 "the fetch derived every state"
is "$(sql "SELECT state FROM version_states WHERE version = '$V003OLD'")" incomplete \
	"kept: 003's first send incomplete (the replies that complete it left out)"
record "$V000" apply "$RESULTS/apply-000.json"
record "$V000" check "$RESULTS/check-000.json"
record "$V000" build "$RESULTS/build-000.json"
record "$V003OLD" apply "$RESULTS/apply-003.json"
record "$V003OLD" check "$RESULTS/check-003.json"
record "$V004" apply "$RESULTS/apply-004.json"
is "$(sql "SELECT state FROM version_states WHERE version = '$V000'")" build-failed \
	"a recorded result changes the kept state in its transaction"
ok "db check: no difference after results" check
like "$(cat "$TMP/check.out")" "^3 series versions; 0 differences" "says so"

# the same stage recorded again (a job run again)
record "$V004" apply "$RESULTS/apply-one.json"
is "$(sql "SELECT state FROM version_states WHERE version = '$V004'")" testing \
	"a result recorded again: the kept state follows (applied now, builds to come)"
ok "db check: no difference after a result recorded again" check

# the later send supersedes the first: a fetch changes versions
fill_db "$FIXTURES/lore/003_6100bb5053417aef.mbox"
is "$(sql "SELECT state FROM version_states WHERE version = '$V003OLD'")" superseded \
	"the superseded send's kept state"
is "$(sql "SELECT state FROM version_states WHERE version = '$V003'")" pending \
	"the new send's"
record "$V003" apply "$RESULTS/apply-003.json"
record "$V003" check "$RESULTS/check-003.json"
record "$V003" build "$RESULTS/build-003.json"
record "$V003" boot "$RESULTS/boot-003.json"
ok "db check: no difference after a send superseded" check

serve_start
ok "the state filter returns what a derivation of every version does" api_states
is "$(metric superseded) $(metric build-failed) $(metric findings)" "1 1 1" \
	"/metrics: versions by kept state"

# by hand, past lorebot: the triggers mark the version, the pages derive
sql "DELETE FROM results WHERE version = '$V000' AND stage = 'build'"
is "$(sql "SELECT version FROM version_states_dirty")" "$V000" "a hand edit marks the version dirty"
ok "a dirty version: the pages derive every state (filter)" api_states
is "$(metric build-failed)" 0 "and /metrics"
ok "db check derives it again" check
is "$(sql "SELECT count(*) FROM version_states_dirty")" 0 "nothing dirty after"
ok "the filter reads the kept states again" api_states

# a kept state that is wrong (no trigger fires on the table itself):
# the filter shows it, so it does read the table, and db check says so
sql "UPDATE version_states SET state = 'passed' WHERE version = '$V004'"
curl -sf "$WEB/api/series?state=passed" >"$TMP/passed.json"
is "$(json "$TMP/passed.json" "[v['id'] for v in d['series']]")" "['$V004']" \
	"the filter is the kept states"
check
is "$?" 1 "db check: a difference, exit 1"
like "$(cat "$TMP/check.err")" "<$V004>: state 'passed' kept, derives 'testing'" "names it"
sql "UPDATE version_states SET date = date + 1 WHERE version = '$V003'"
sql "INSERT INTO version_states VALUES ('nosuch@x', 'passed', 1)"
check
like "$(cat "$TMP/check.err")" "<$V003>: date" "a wrong date too"
like "$(cat "$TMP/check.err")" "<nosuch@x>: 'passed' kept for a version gone or unknown" \
	"and a state kept for no version"

# db rebuild is the reference: every state derived again
ok "db rebuild" lorebot --db "$DB" db rebuild
ok "db check: no difference after a rebuild" check
ok "the filter after a rebuild" api_states

# other archs (the daemon's --arch): derived for them, others derive
ok "db rebuild --arch x86_64" lorebot --db "$DB" db rebuild --arch x86_64
ok "db check --arch x86_64" check --arch x86_64
check
is "$?" 1 "db check with build.arch's archs: not derived for them"
like "$(cat "$TMP/check.err")" "not derived with these archs" "says so"
record "$V003" boot "$RESULTS/boot-003.json"
like "$(sql "SELECT value FROM state WHERE key = 'version_states'")" "^archs=x86_64 boot=[01]$" \
	"a command with other archs leaves the states to the ones they were derived for"
is "$(sql "SELECT count(*) FROM version_states_dirty")" 1 "its version stays dirty"
ok "the pages derive every state then" api_states
ok "db check --arch x86_64 derives it" check --arch x86_64

# --json: the counts as a document; --arch=LIST and the options after
# or before the subcommand read as getopt reads them
live=$(sql "SELECT count(*) FROM versions WHERE gone = 0")
check --json --arch=x86_64
is "$(json "$TMP/check.out" "(d['versions'], d['differences'])")" "($live, 0)" \
	"db check --json: the versions and the differences"
lorebot --db "$DB" db --json rebuild --arch x86_64 >"$TMP/rebuild.json"
is "$(json "$TMP/rebuild.json" "(d['versions'], d['changed'])")" "($live, 0)" \
	"db --json rebuild: the versions and what changed"
# usage errors: exit 2, said once
for args in "" "frob" "check frob" "check --bogus" "check --arch"; do
	# shellcheck disable=SC2086
	lorebot --db "$DB" db $args >/dev/null 2>"$TMP/usage.err"
	is "$?" 2 "db $args: a usage error"
	is "$(grep -c "^lorebot db: " "$TMP/usage.err")" 1 "db $args: said once"
done
is "$(head -1 "$TMP/usage.err")" "lorebot db: option '--arch' requires an argument" \
	"a known option without its argument is not called unknown"
lorebot --db "$DB" job list --json >"$TMP/jobs.json"
is "$(json "$TMP/jobs.json" "type(d['jobs']).__name__")" list "job list --json: the queue"
for args in "list --bogus" "list frob" "list --repo $TMP" "run --json 1" "work --arch x86_64 $TMP"; do
	# shellcheck disable=SC2086
	lorebot --db "$DB" job $args >/dev/null 2>"$TMP/usage.err"
	is "$?" 2 "job $args: a usage error"
	is "$(grep -c "^lorebot job: " "$TMP/usage.err")" 1 "job $args: said once"
done
is "$(head -1 "$TMP/usage.err")" "lorebot job: --arch is an option of 'job run'" \
	"an option of another subcommand is named as such"
done_testing

#!/bin/sh
# lorebot record: stage results stored per version (and arch), checked
# against their contracts
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

fill_db

out=$(lorebot --db "$DB" record --version "$V004" --stage apply "$RESULTS/apply-004.json")
is "$?" 0 "record apply exits 0"
is "$out" "apply: failed (patch 2/4 does not apply: arch/arm64/include/asm/tlbflush.h)" \
	"apply: the failing patch and file"
out=$(lorebot --db "$DB" record --version "<$V004>" --stage check "$RESULTS/check-004.json")
is "$out" "check: warnings (7 warnings, 1 note)" "check: counts by severity (<id> accepted)"
out=$(lorebot --db "$DB" record --version "$V003" --stage check "$RESULTS/check-003.json")
is "$out" "check: errors (1 error, 5 warnings)" "check: an error makes the status errors"
out=$(lorebot --db "$DB" record --version "$V000" --stage build "$RESULTS/build-000.json")
is "$out" "build arm64: warnings (1 new warning)
build riscv: errors (1 error)
build x86_64: ok (ok)" "build: one row per arch, old warnings not counted"
out=$(lorebot --db "$DB" record --version "$V000" --stage boot "$RESULTS/boot-000.json")
is "$out" "boot arm64: regressions (5 tests passed, 1 new failure, 2 findings)
boot x86_64: ok (6 tests passed)" "boot: tests and findings summarised"
out=$(lorebot --db "$DB" record --version "$V000" --stage apply "$RESULTS/apply-000.json")
is "$out" "apply: applied (applied on mm-new (065ab801c937))" "apply: applied, with the base"

is "$(sql "SELECT stage, arch, status, findings FROM results WHERE version = '$V000'
	ORDER BY stage, arch" | tr '\n' ' ')" \
	"apply||applied|0 boot|arm64|regressions|2 boot|x86_64|ok|0 build|arm64|warnings|1 build|riscv|errors|1 build|x86_64|ok|0 " \
	"rows: stage, arch, status, reportable findings"
is "$(sql "SELECT count(*) FROM results r JOIN versions v ON v.id = r.version
	WHERE r.generation = v.generation")" 9 "each row remembers the version's generation"
is "$(sql "SELECT json_extract(json, '\$.profile') || ' ' || json_extract(json, '\$.compiler')
	FROM results WHERE version = '$V000' AND stage = 'build' AND arch = 'riscv'")" \
	"small riscv64-linux-gnu-gcc (Debian 12.2.0-14+deb12u1) 12.2.0" \
	"an arch row keeps its keys and gets the document's other keys"
is "$(sql "SELECT json_extract(json, '\$.patches[1].failures[5].tree.lines[0].text')
	FROM results WHERE version = '$V004' AND stage = 'apply'")" "{" \
	"keys outside the contract are kept (apply's tree lines)"

# replace, one arch, stdin, --json
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
d["archs"][2]["status"] = "ok"; d["archs"][2]["findings"] = []
json.dump(d, sys.stdout)' "$RESULTS/build-000.json" >"$TMP/fixed.json"
lorebot --db "$DB" record --version "$V000" --stage build --arch riscv --json - \
	<"$TMP/fixed.json" >"$TMP/rec.json"
is "$?" 0 "record --arch riscv from stdin"
is "$(json "$TMP/rec.json" "[(r['arch'], r['status']) for r in d['recorded']]")" \
	"[('arm64', 'warnings'), ('riscv', 'ok'), ('x86_64', 'ok')]" "--json: the stage's rows now"
is "$(sql "SELECT count(*) FROM results WHERE version = '$V000' AND stage = 'build'")" 3 \
	"recording again replaces, it does not add"
is "$(sql "SELECT status FROM results WHERE version = '$V000' AND stage = 'build'
	AND arch = 'arm64'")" warnings "--arch riscv left arm64 alone"
echo '{"arch": "x86_64", "status": "infra", "message": "timed out after 45 min"}' |
	lorebot --db "$DB" record --version "$V003" --stage build - >"$TMP/out"
is "$(cat "$TMP/out")" "build x86_64: infra (infrastructure error: timed out after 45 min)" \
	"a single arch object is a document too"

# bad input: clear errors, nothing recorded
n0=$(sql "SELECT count(*) FROM results")
bad() {
	_desc=$1 _re=$2
	shift 2
	lorebot --db "$DB" record "$@" >"$TMP/out" 2>"$TMP/err"
	_rc=$?
	is "$_rc" 2 "$_desc: exit 2"
	like "$(cat "$TMP/err")" "$_re" "$_desc: says why"
}
printf '{"patches": [\n  {"n": 1,}\n]}' >"$TMP/broken.json"
bad "broken JSON" "broken.json: 2:11: unexpected character" --version "$V004" --stage apply "$TMP/broken.json"
bad "unknown version" "no series version 'nosuch@example.org' in the database" \
	--version nosuch@example.org --stage apply "$RESULTS/apply-004.json"
bad "unknown stage" "unknown stage 'lint'" --version "$V004" --stage lint "$RESULTS/apply-004.json"
echo '{"base": null}' >"$TMP/x.json"
bad "apply without patches" "apply result: no 'patches' list" \
	--version "$V004" --stage apply "$TMP/x.json"
echo '{"patches": [{"n": 1}]}' >"$TMP/x.json"
bad "a patch without status" "apply result: patch 1 has no 'status'" \
	--version "$V004" --stage apply "$TMP/x.json"
echo '{"findings": [{"rule": "x", "severity": "fatal"}]}' >"$TMP/x.json"
bad "unknown severity" "check result: a finding has severity 'fatal'" \
	--version "$V004" --stage check "$TMP/x.json"
echo '{"findings": {"rule": "x"}}' >"$TMP/x.json"
bad "findings not a list" "check result: 'findings' is not a list" \
	--version "$V004" --stage check "$TMP/x.json"
echo '{"archs": [{"arch": "x86_64", "status": "great"}]}' >"$TMP/x.json"
bad "unknown build status" "build result: status 'great' is not one of warnings, errors, ok, infra, partial" \
	--version "$V004" --stage build "$TMP/x.json"
echo '{"archs": [{"arch": "x86_64", "status": "passed"}]}' >"$TMP/x.json"
bad "unknown boot status" "boot result: status 'passed' is not one of ok, regressions, boot-failure, infra" \
	--version "$V004" --stage boot "$TMP/x.json"
echo '{"archs": [{"status": "ok"}]}' >"$TMP/x.json"
bad "an arch without a name" "build result: item 1 of 'archs' has no 'arch'" \
	--version "$V004" --stage build "$TMP/x.json"
bad "an arch not in the document" "build result: no arch 'sparc' in 'archs'" \
	--version "$V000" --stage build --arch sparc "$RESULTS/build-000.json"
bad "--arch for apply" "apply results are not per arch" \
	--version "$V004" --stage apply --arch x86_64 "$RESULTS/apply-004.json"
echo '[1, 2]' >"$TMP/x.json"
bad "not an object" "apply result: the document is not a JSON object" \
	--version "$V004" --stage apply "$TMP/x.json"
bad "no such file" "cannot read '$TMP/none.json'" \
	--version "$V004" --stage apply "$TMP/none.json"
bad "two files" "one result file expected" --version "$V004" --stage apply a.json b.json
bad "no --stage" "--stage is required" --version "$V004" "$RESULTS/apply-004.json"
is "$(sql "SELECT count(*) FROM results")" "$n0" "nothing recorded by the bad inputs"

lorebot --db "$TMP/none.db" record --version "$V004" --stage apply "$RESULTS/apply-004.json" \
	>/dev/null 2>&1
is "$?" 2 "a missing database: exit 2"
is "$(sql 'PRAGMA integrity_check')" ok "integrity_check"
done_testing

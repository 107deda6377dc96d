#!/bin/sh
# lorebot export --kcidb: the fixture threads' results as one KCIDB v5.3
# document, valid against the schema (tests/fixtures/kcidb, with Debian's
# python3-jsonschema), and a document with a status the schema lacks is
# not; a checkout per version (patchset_hash as the schema defines it,
# recomputed here with sha256sum from the raw patches), a build per arch,
# boot and kselftest tests, flaky mapped to a status the schema has;
# --since and --series.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

SCHEMA=$FIXTURES/kcidb/kcidb.v5.3.json
valid() {
	$PY "$LOREBOT_SRC/tests/kcidb-validate.py" "$SCHEMA" "$@"
}
fill_db
record_all
report_conf git.url=https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git
# 000's arm64 mremap_test failed, then passed when run again: flaky
$PY - "$RESULTS/boot-000.json" "$TMP/boot-flaky.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for a in d["archs"]:
    for t in a.get("tests", []):
        if a["arch"] == "x86_64" and t["name"] == "mm/gup_test":
            t["result"] = "flaky"
json.dump(d, open(sys.argv[2], "w"))
EOF
record "$V000" boot "$TMP/boot-flaky.json"

lorebot --config "$CONF" --db "$DB" export --kcidb >"$TMP/all.json" 2>"$TMP/err"
is "$?" 0 "export --kcidb: exit 0"
is "$(valid "$TMP/all.json")" "ok 1" "the document is valid KCIDB v5.3"
J=$TMP/all.json
is "$(json $J "(d['version'], len(d['checkouts']), len(d['builds']))")" \
	"({'major': 5, 'minor': 3}, 3, 6)" "three checkouts (one per version), a build per arch of 000 and 003"
is "$(json $J "[c.get('valid') for c in sorted(d['checkouts'], key=lambda c: c['id'] != 'lorebot:$V004')][:1]")" \
	"[False]" "004 did not apply: valid false"
is "$(json $J "sorted(c['id'] for c in d['checkouts'] if c.get('valid'))")" \
	"['lorebot:$V003', 'lorebot:$V000']" "ids <origin>:<version id>; 000 and 003 applied: valid"
C4="[c for c in d['checkouts'] if c['id'] == 'lorebot:$V004'][0]"
is "$(json $J "($C4['git_repository_url'], $C4['tree_name'], $C4['git_repository_branch'], $C4['git_commit_hash'])")" \
	"('https://git.kernel.org/pub/scm/linux/kernel/git/akpm/mm.git', 'mm', 'mm-new', '065ab801c937ee62d3105e05a491b7721d8ed990')" \
	"the base: git.url, its tree name, branch and commit"
is "$(json $J "($C4['message_id'], [f['name'] for f in $C4['patchset_files']])")" \
	"('$V004', ['0001.patch', '0002.patch', '0003.patch', '0004.patch'])" \
	"message_id and the four patches"
like "$(json $J "$C4['patchset_files'][1]['url']")" "^https://lore.kernel.org/r/20250115033807.46664-3-21cnbao@gmail.com/raw\$" \
	"each patch file: its raw mail on the archive"
# the schema's definition: sha256sum *.patch | cut -c-64 | sha256sum | cut -c-64
mkdir -p "$TMP/p"
for n in 2 3 4 5; do
	lorebot --db "$DB" show --raw "20250115033807.46664-$n-21cnbao@gmail.com" \
		>"$TMP/p/000$((n - 1)).patch"
done
want=$(cd "$TMP/p" && sha256sum *.patch | cut -c-64 | sha256sum | cut -c-64)
is "$(json $J "$C4['patchset_hash']")" "$want" "patchset_hash: sha256sum *.patch | cut -c-64 | sha256sum"

B="{b['id'].rsplit(':', 1)[1] + ':' + b['checkout_id'].split(':', 1)[1][:8]: b for b in d['builds']}"
is "$(json $J "[($B[k]['status'], $B[k]['misc']['new_errors'], $B[k]['misc']['new_warnings']) for k in ('x86_64:20260824', 'arm64:20260824', 'riscv:20260824')]")" \
	"[('PASS', 0, 0), ('PASS', 0, 1), ('FAIL', 1, 0)]" \
	"000's builds: x86_64 PASS, arm64 PASS with a new warning, riscv FAIL"
like "$(json $J "$B['riscv:20260824']['log_excerpt']")" "mm/vmscan.c:3871:50: error: passing argument 3" \
	"the failing build's excerpt: the error as the mail gives it"
T="{t['id'].split(':', 2)[2]: t for t in d['tests'] if '$V000' in t['id']}"
is "$(json $J "sorted(k for k in $T if k.startswith('arm64'))")" \
	"['arm64:boot', 'arm64:boot.kernel_report_1', 'arm64:kselftest.mm.compaction_test', 'arm64:kselftest.mm.gup_test', 'arm64:kselftest.mm.madv_populate', 'arm64:kselftest.mm.mlock2-tests', 'arm64:kselftest.mm.mremap_test', 'arm64:kselftest.mm.thuge-gen']" \
	"000 arm64's tests: boot, each kselftest, the kernel warning"
is "$(json $J "($T['arm64:boot']['status'], $T['arm64:kselftest.mm.mremap_test']['status'], $T['arm64:boot.kernel_report_1']['status'], $T['arm64:kselftest.mm.gup_test']['status'])")" \
	"('PASS', 'FAIL', 'FAIL', 'PASS')" "it booted; mremap_test FAIL; the warning FAIL; the rest PASS"
is "$(json $J "($T['x86_64:kselftest.mm.gup_test']['status'], $T['x86_64:kselftest.mm.gup_test']['misc']['flaky'])")" \
	"('PASS', True)" "flaky: PASS with misc.flaky (no status the schema lacks)"
is "$(json $J "[k for k in $T if k.startswith('riscv')]")" "[]" \
	"riscv did not build: no boot, no tests"

# the schema is what says so: a status it lacks is refused
$PY - "$J" "$TMP/flaky.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["tests"][0]["status"] = "FLAKY"
json.dump(d, open(sys.argv[2], "w"))
EOF
valid "$TMP/flaky.json" >"$TMP/bad.out"
is "$?" 1 "a test with status FLAKY is not valid KCIDB"
like "$(cat "$TMP/bad.out")" "'FLAKY' is not one of" "and the validator says why"
$PY - "$J" "$TMP/hash.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["checkouts"][0]["patchset_hash"] = "sha256:" + "0" * 64
json.dump(d, open(sys.argv[2], "w"))
EOF
valid "$TMP/hash.json" >/dev/null
is "$?" 1 "nor a patchset_hash that is not 64 hex digits"

lorebot --config "$CONF" --db "$DB" export --kcidb --series "$V003" >"$TMP/one.json"
is "$(json "$TMP/one.json" "[c['id'] for c in d['checkouts']]")" "['lorebot:$V003']" "--series: that version only"
is "$(valid "$TMP/one.json")" "ok 1" "and valid"
lorebot --config "$CONF" --db "$DB" export --kcidb --since "$(($(date +%s) + 3600))" >"$TMP/none.json"
is "$(json "$TMP/none.json" "(len(d['checkouts']), len(d['builds']), len(d['tests']))")" "(0, 0, 0)" \
	"--since an hour from now: nothing"
is "$(valid "$TMP/none.json")" "ok 1" "an empty document is valid too"
lorebot --config "$CONF" --db "$DB" export --kcidb --since 1h >"$TMP/recent.json"
is "$(json "$TMP/recent.json" "len(d['checkouts'])")" 3 "--since 1h: all three (recorded just now)"
report_conf kcidb.origin=Lore-Bot
lorebot --config "$CONF" --db "$DB" export --kcidb >/dev/null 2>"$TMP/origin.err"
is "$?" 2 "an origin the schema refuses: usage error"
lorebot --db "$DB" export >/dev/null 2>&1
is "$?" 2 "no format: usage error"

done_testing

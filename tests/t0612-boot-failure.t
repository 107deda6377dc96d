#!/bin/sh
# A patch making mlock2(MLOCK_ONFAULT) populate at once: exactly one
# finding, "new kselftest failure: mm/mlock2-tests", with its output.
# schedule: last 1.5 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/boot-lib.sh"
boot_need_all
boot_repo fail-mlock-onfault

lorebot boot --repo "$TMP/repo" --series fail-mlock-onfault --arch x86_64 --json \
	>"$TMP/out.json" 2>"$TMP/err"
is "$?" 1 "exit 1: findings"
J=$TMP/out.json
a=x86_64
is "$(arch_json $J $a "a['status']")" regressions "regressions"
is "$(arch_json $J $a "[f['message'].split(' (')[0] for f in a['findings']]")" \
	"['new kselftest failure: mm/mlock2-tests']" "one finding: the new failure"
like "$(arch_json $J $a "a['findings'][0]['output']")" "not ok [0-9]+ " \
	"with the test's own output"
is "$(arch_json $J $a "[t['name'] for t in a['tests'] if t['new']]")" "['mm/mlock2-tests']" \
	"only mlock2-tests is new"
is "$(arch_json $J $a "[t['result'] for t in a['tests'] if t['name'] == 'mm/mlock2-tests']")" \
	"['fail']" "it failed (every run: not flaky)"
is "$(arch_json $J $a "[t['base'] for t in a['tests'] if t['name'] == 'mm/mlock2-tests']")" \
	"['pass']" "it passes on the base"
is "$(arch_json $J $a "[t['attempts'] for t in a['tests'] if t['name'] == 'mm/mlock2-tests']")" \
	"[5]" "it was run boot.confirm times"
is "$(arch_json $J $a "a['findings'][0]['confirm']['tip']")" "{'runs': 5, 'bad': 5}" \
	"failed in 5 of 5 runs"
is "$(arch_json $J $a "a['findings'][0]['confirm']['base']['bad']")" 0 "and never on the base"
is "$(arch_json $J $a "a['findings'][0]['patch']")" 1 "the series' only patch is the culprit"
done_testing

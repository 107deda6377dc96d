#!/bin/sh
# A patch adding WARN_ON_ONCE(1) to madvise_populate(): on every arch, one
# finding "new kernel warning" with the trace and the test that ran into
# it (mm/madv_populate); the base has no warning.
# schedule: last 1.8 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/boot-lib.sh"
boot_need_all
boot_repo warn-madvise-populate

lorebot boot --repo "$TMP/repo" --series warn-madvise-populate --json \
	>"$TMP/out.json" 2>"$TMP/err"
is "$?" 1 "exit 1: findings"
J=$TMP/out.json
is "$(json $J "len(d['archs'])")" 3 "three arches"
for a in x86_64 arm64 riscv; do
	is "$(arch_json $J $a "a['status']")" regressions "$a: regressions"
	is "$(arch_json $J $a "[f['kind'] for f in a['findings']]")" "['kernel-warning']" \
		"$a: one finding, a kernel warning"
	f="a['findings'][0]"
	like "$(arch_json $J $a "$f['message']")" \
		"^new kernel warning: WARNING in (madvise_populate|do_madvise) \(mm/madvise.c:[0-9]+\) during mm/madv_populate$" \
		"$a: its message (the static function may be inlined)"
	is "$(arch_json $J $a "$f['test']")" mm/madv_populate "$a: the test that ran into it"
	is "$(arch_json $J $a "$f['new']")" True "$a: new"
	like "$(arch_json $J $a "$f['trace']")" "sys_madvise" "$a: the call trace"
	like "$(arch_json $J $a "$f['trace']")" "end trace" "$a: the whole report"
	is "$(arch_json $J $a "[t['name'] for t in a['tests'] if t['new']]")" "[]" \
		"$a: no new test failures"
	is "$(arch_json $J $a "len(a['known'])")" 0 "$a: nothing known from the base"
	base_log=$(arch_json $J $a "a['base']['console_log']")
	is "$(grep -c 'WARNING:' "$base_log")" 0 "$a: the base console has no warning"
	like "$(grep -c 'lorebot: run madv_populate' "$base_log")" "^[1-9]" \
		"$a: though the base ran madv_populate"
done
done_testing

#!/bin/sh
# The 6.12 stand-in boots on x86_64, arm64 and riscv under qemu and runs
# the default mm kselftests; booted as tip and as base, the same kernel
# has no findings (and the base passes every test it runs).
# schedule: last 2.3 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/boot-lib.sh"
boot_need_all
boot_repo

lorebot boot --repo "$TMP/repo" --series mm-new --json >"$TMP/out.json" 2>"$TMP/err"
is "$?" 0 "exit 0: nothing new"
J=$TMP/out.json
is "$(json $J "[a['arch'] for a in d['archs']]")" "['x86_64', 'arm64', 'riscv']" "three arches"
is "$(json $J "d['tip'] == d['base']")" True "tip and base are the same commit"
for a in x86_64 arm64 riscv; do
	is "$(arch_json $J $a "a['status']")" ok "$a: status ok"
	is "$(arch_json $J $a "a['end']")" done "$a: the guest init ran every test"
	is "$(arch_json $J $a "len(a['findings'])")" 0 "$a: no findings"
	is "$(arch_json $J $a "[t['name'] for t in a['tests'] if t['result'] not in ('pass', 'skip')]")" \
		"[]" "$a: every test passes (or skips)"
	like "$(arch_json $J $a "len([t for t in a['tests'] if t['result'] == 'pass'])")" \
		"^[12][0-9]$" "$a: most of the default list passes"
	is "$(arch_json $J $a "'mm/uffd-stress' in [t['name'] for t in a['tests'] if t['result'] == 'pass']")" \
		True "$a: mm/uffd-stress passes"
	is "$(arch_json $J $a "[s['reason'] for s in a['skipped'] if s['name'] == 'mm/khugepaged']")" \
		"['does not build in 6.12 (KSFT_SKIP undeclared)']" "$a: skipped tests say why"
	like "$(arch_json $J $a "a['accel']")" "^(TCG|kvm): " "$a: says how qemu ran and why"
	log=$(arch_json $J $a "a['console_log']")
	like "$(grep -c 'lorebot: run' "$log")" "^[12][0-9]$" "$a: console log kept"
	is "$(grep -c -E 'WARNING:|BUG:|Oops|Kernel panic' "$log")" 0 "$a: no kernel reports"
done

# a short list: its base is booted (or cached) once, then comes from the cache
lorebot boot --repo "$TMP/repo" --series mm-new --arch riscv --tests mkdirty,mremap_dontunmap \
	>"$TMP/out.txt" 2>"$TMP/err"
is "$?" 0 "short list: exit 0"
like "$(cat "$TMP/out.txt")" "^riscv: ok \(2 passed, 0 failed, 0 skipped, 0 flaky\)" \
	"text: one line per arch"
lorebot boot --repo "$TMP/repo" --series mm-new --arch riscv --tests mkdirty,mremap_dontunmap \
	--json >"$TMP/again.json" 2>"$TMP/err"
is "$?" 0 "again: exit 0"
is "$(arch_json "$TMP/again.json" riscv "a['base']['cached']")" True "again: the base came from the cache"
is "$(arch_json "$TMP/again.json" riscv "[t['name'] for t in a['tests']]")" \
	"['mm/mkdirty', 'mm/mremap_dontunmap']" "again: the tests asked for"
done_testing

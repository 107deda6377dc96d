#!/bin/sh
# An unused variable under #ifdef CONFIG_ARM64 is one new warning on
# arm64 and nothing elsewhere; the file's pre-existing W=1 warnings
# (kernel-doc, lines shifted by the patch) are not reported as new.
# schedule: last 1.8 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" arm64-warning "$FIXTURES/build/arm64-warning"
apply_series "$R" kconfig "$FIXTURES/build/kconfig"
build_config "$TMP/bot.conf"

lorebot --config "$TMP/bot.conf" build --repo "$R" --series arm64-warning \
	--log-dir "$TMP/logs" --json >"$TMP/out.json" 2>"$TMP/err"
is "$?" 1 "exit 1 (a new warning)"
J=$TMP/out.json
A="{a['arch']: a for a in d['archs']}"
is "$(json $J "[a['status'] for a in d['archs']]")" "['ok', 'warnings', 'ok']" \
	"warnings on arm64 only"
new="[f for f in $A['arm64']['findings'] if f['new']]"
is "$(json $J "len($new)")" 1 "arm64: exactly one new finding"
is "$(json $J "($new[0]['patch'], $new[0]['severity'], $new[0]['file'], $new[0]['option'])")" \
	"(1, 'warning', 'kernel/reboot.c', '-Wunused-variable')" \
	"patch 1, a warning in kernel/reboot.c, -Wunused-variable"
is "$(json $J "$new[0]['message']")" "unused variable 'psci_reset_type'" "the message"
is "$(json $J "$new[0]['function']")" do_kernel_restart "in do_kernel_restart()"
for a in x86_64 riscv; do
	is "$(json $J "[f for f in $A['$a']['findings'] if f['new']]")" "[]" "$a: nothing new"
done
for a in x86_64 arm64 riscv; do
	old="[f for f in $A['$a']['findings'] if not f['new']]"
	is "$(json $J "sorted((f['file'], f['tool'], f['patch']) for f in $old)")" \
		"[('kernel/reboot.c', 'kernel-doc', 0), ('kernel/reboot.c', 'kernel-doc', 0)]" \
		"$a: the two kernel-doc warnings of the base are pre-existing"
	like "$(json $J "' '.join(f['message'] for f in $old)")" \
		"not described in 'do_kernel_restart'" "$a: one of them about do_kernel_restart"
done
base_line=$(git -C "$R" show mm-new:kernel/reboot.c | grep -n '^void do_kernel_restart' | cut -d: -f1)
is "$(json $J "max(f['line'] for f in $A['x86_64']['findings'] if 'do_kernel_restart' in f['message']) > $base_line")" \
	True "reported at its line in the patched file (moved down by the patch)"

# a build stopped at once after the guard cleaned obj/ of the series
# before (kernel/reboot.o among what it removed) leaves nothing rebuilt:
# the next build still knows reboot.c is compiled at the base, from the
# record of obj/, and its kernel-doc warnings stay pre-existing
build_config "$TMP/stop.conf" arch.x86_64.timeout 1s
lorebot --config "$TMP/stop.conf" build --repo "$R" --series arm64-warning \
	--arch x86_64 --log-dir "$TMP/logs-s" --json >"$TMP/stop.json" 2>"$TMP/stop.err"
is "$(json "$TMP/stop.json" "d['archs'][0]['status']")" infra "stopped after 1 s: infra"
lorebot --config "$TMP/bot.conf" build --repo "$R" --series arm64-warning \
	--arch x86_64 --log-dir "$TMP/logs-x" --json >"$TMP/again.json" 2>"$TMP/again.err"
is "$?" 0 "x86_64 after it: exit 0"
is "$(json "$TMP/again.json" "sorted((f['file'], f['tool'], f['new']) for f in d['archs'][0]['findings'])")" \
	"[('kernel/reboot.c', 'kernel-doc', False), ('kernel/reboot.c', 'kernel-doc', False)]" \
	"x86_64 after it: the two kernel-doc warnings are still pre-existing"

# a build killed while it checked out leaves git's index lock behind: the
# next build, which holds the tree's own lock, knows it is stale (made
# under that lock: another test may be checking out there right now)
bdir=$(json $J "$A['arm64']['build_dir']")
flock "$bdir.lock" sh -c ': >"$1/src.index.lock"' - "$bdir"
lorebot --config "$TMP/bot.conf" build --repo "$R" --series arm64-warning \
	--arch arm64 --log-dir "$TMP/logs-t" >"$TMP/out.txt" 2>&1
is "$?" 1 "text: exit 1 (not an infrastructure error over a stale index lock)"
ok "the stale index lock is gone" test ! -e "$bdir/src.index.lock"
like "$(cat "$TMP/out.txt")" \
	"kernel/reboot.c:[0-9]+:[0-9]+: warning: unused variable 'psci_reset_type' \[-Wunused-variable\] \[patch 1/1\]" \
	"text: the warning in compiler format"
like "$(cat "$TMP/out.txt")" "2 pre-existing diagnostics in the touched files not reported" \
	"text: the pre-existing ones are only counted"

# a new Kconfig option (default y) is configured before the build: the
# warning it guards only exists when olddefconfig ran
lorebot --config "$TMP/bot.conf" build --repo "$R" --series kconfig \
	--arch x86_64 --log-dir "$TMP/logs-k" --json >"$TMP/kconfig.json" 2>"$TMP/kconfig.err"
is "$?" 1 "kconfig: exit 1"
J=$TMP/kconfig.json
X="d['archs'][0]"
is "$(json $J "$X['patches'][0]['kconfig']")" True "the patch changes a Kconfig file"
is "$(json $J "[(f['file'], f['message']) for f in $X['findings'] if f['new']]")" \
	"[('mm/rmap.c', \"unused variable 'requests'\")]" \
	"the code under the new option was compiled"
ok "olddefconfig ran" grep -q "configuration written to .config" \
	"$(dirname "$(json $J "$X['patches'][0]['log']")")"/*olddefconfig.log

# and the next series is built with the base's configuration again
lorebot --config "$TMP/bot.conf" build --repo "$R" --series arm64-warning \
	--arch x86_64 --log-dir "$TMP/logs-a" --json >"$TMP/after.json" 2>"$TMP/after.err"
is "$?" 0 "after it: exit 0"
ok "the option is gone from .config" sh -c \
	"! grep -q RMAP_UNMAP_STATS '$(json "$TMP/after.json" "d['archs'][0]['obj_dir']")/.config'"

done_testing

#!/bin/sh
# Kernels that fail at boot (a fixture patch: lorebot_fixture=panic|hang
# on the command line): a panic is a boot failure naming it, a hang is
# stopped at the time limit and reported with the end of its console.
# schedule: last 2.2 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/boot-lib.sh"
boot_need_all
boot_repo boot-fixture

lorebot boot --repo "$TMP/repo" --series boot-fixture --arch x86_64 --no-base \
	--cmdline lorebot_fixture=panic --json >"$TMP/panic.json" 2>"$TMP/err"
is "$?" 1 "panic: exit 1"
J=$TMP/panic.json
is "$(arch_json $J x86_64 "a['status']")" boot-failure "panic: boot failure"
is "$(arch_json $J x86_64 "a['end']")" no-init "panic: the init never ran"
like "$(arch_json $J x86_64 "a['message']")" \
	"^boot failure: the kernel stopped before the init ran: Kernel panic: lorebot fixture: panic at boot" \
	"panic: the message names the panic"
is "$(arch_json $J x86_64 "[f['kind'] for f in a['findings']]")" \
	"['kernel-panic', 'boot-failure']" "panic: the panic and the boot failure"
like "$(arch_json $J x86_64 "a['findings'][0]['trace']")" "kernel_init" "panic: with its trace"

start=$(date +%s)
lorebot boot --repo "$TMP/repo" --series boot-fixture --arch x86_64 --no-base \
	--cmdline lorebot_fixture=hang --timeout 20s --json >"$TMP/hang.json" 2>"$TMP/err"
is "$?" 1 "hang: exit 1"
J=$TMP/hang.json
is "$(arch_json $J x86_64 "a['status']")" boot-failure "hang: boot failure"
is "$(arch_json $J x86_64 "a['end']")" hung "hang: stopped at the time limit"
like "$(arch_json $J x86_64 "a['message']")" "no init after 2[0-9] s, stopped at the time limit" \
	"hang: the message says so"
like "$(arch_json $J x86_64 "a['findings'][-1]['console_tail']")" \
	"lorebot fixture: hanging at boot" "hang: the end of the console log"
is "$(ps -eo args | grep -c '[l]orebot_fixture=hang')" 0 "hang: qemu is gone"
is "$(arch_json $J x86_64 "a['boots']")" 1 "hang: the kernel had printed, so booted once"

# A guest that never reaches the kernel's banner (seen with TCG riscv on a
# loaded host: OpenSBI's banner, then nothing) boots once more before it
# counts.  The image is RISC-V "j ." repeated: OpenSBI jumps into it and
# it loops there.
printf '\157\000\000\000' >"$TMP/j"
i=0
while [ $i -lt 12 ]; do cat "$TMP/j" "$TMP/j" >"$TMP/j2" && mv "$TMP/j2" "$TMP/j"; i=$((i + 1)); done
git -C "$TMP/repo" worktree add -q "$TMP/src" mm-new
chmod go+rx "$TMP"	# build.user reads the tree and the image
lorebot boot --arch riscv --image "$TMP/j" --src "$TMP/src" --objdir "$TMP/obj" \
	--workdir "$TMP/silent" --tests mremap_dontunmap --timeout 5s --json \
	>"$TMP/silent.json" 2>"$TMP/err"
is "$?" 1 "silent: exit 1"
J=$TMP/silent.json
is "$(arch_json $J riscv "a['boots']")" 2 "silent: booted twice"
like "$(cat "$TMP/err")" "boot riscv: no kernel output in 5 s; booting once more" \
	"silent: the second boot is announced"
like "$(arch_json $J riscv "a['message']")" \
	"^boot failure: the kernel printed nothing in 5 s, twice, stopped at the time limit" \
	"silent: the message says the kernel printed nothing"
is "$(arch_json $J riscv "a['first_console_log']")" "$TMP/silent/tip-riscv.console.log.1" \
	"silent: the first console is kept"
like "$(cat "$TMP/silent/tip-riscv.console.log.1")" "OpenSBI" "silent: it has the firmware's banner"
like "$(arch_json $J riscv "a['findings'][-1]['console_tail']")" "Domain0 Next Mode" \
	"silent: the finding ends with the firmware's last lines"
done_testing

#!/bin/sh
# Kernels that fail at boot (a fixture patch: lorebot_fixture=panic|hang
# on the command line): a panic is a boot failure naming it, a hang is
# stopped at the time limit and reported with the end of its console.
# schedule: last 1.9 (builds or boots on the base build directories; minutes)
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
done_testing

#!/bin/sh
# The base of mm-new builds on x86_64, arm64 and riscv, the three at
# once, and a documentation-only patch on it builds clean everywhere,
# with no W=1 pass and nothing new.
#
# ci/run-tests.sh starts this test first: on a fresh machine it is where
# the three base build directories (minutes each) are made, while the
# light tests run beside it; every later build and boot test waits for
# the directory it needs (kbuild_open() locks it) instead of building
# the same base again.
# schedule: first
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" docs "$FIXTURES/build/docs"
build_config "$TMP/bot.conf"

pids=
for a in x86_64 arm64 riscv; do
	lorebot --config "$TMP/bot.conf" build --repo "$R" --series docs --arch $a \
		--log-dir "$TMP/logs-$a" --json >"$TMP/$a.json" 2>"$TMP/$a.err" &
	pids="$pids $!"
done
for a in x86_64 arm64 riscv; do
	set -- $pids
	wait "$1"
	echo $? >"$TMP/$a.rc"
	shift
	pids="$*"
done

for a in x86_64 arm64 riscv; do
	J=$TMP/$a.json
	is "$(cat "$TMP/$a.rc")" 0 "$a: exit 0"
	X="d['archs'][0]"
	is "$(json $J "($X['arch'], $X['status'], $X['infra'])")" "('$a', 'ok', None)" \
		"$a: the base and the patch build"
	is "$(json $J "[f for f in $X['findings'] if f['new']]")" "[]" "$a: nothing new"
	is "$(json $J "[(p['status'], p['w1_files']) for p in $X['patches']]")" \
		"[('ok', 0)]" "$a: the documentation patch builds, no W=1 pass"
	# how much the patch step recompiles depends on what the shared
	# directory held before (another test's series, in a warm cache):
	# printed, not asserted
	diag "$a: the patch step recompiled $(json $J "$X['patches'][0]['rebuilt']") units"
	# kselftest.config names options of every arch; the others are for all
	is "$(json $J "[l for l in ($X['config_notes'] or '').splitlines() if not l.startswith('kselftest.config:')]")" \
		"[]" "$a: every option of boot, boot-$a and mm.config is in the base .config"
	ok "$a: the image" test -s "$(json $J "$X['image']")"
done
done_testing

#!/bin/sh
# A build step past its time limit is stopped and reported as an
# infrastructure error, the next arch is still built, and the next build
# of the stopped arch recovers the directory (what the stopped step wrote
# is deleted, not trusted).
# schedule: last 1.8 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" bisect "$FIXTURES/build/bisect"
build_config "$TMP/bot.conf"

# the base of x86_64 first (shared, usually there already): a cold base
# build must not be what times out
lorebot --config "$TMP/bot.conf" build --repo "$R" --range mm-new..bisect~1 \
	--arch x86_64 --log-dir "$TMP/logs1" --json >"$TMP/warm.json" 2>"$TMP/warm.err"
is "$?" 1 "the base is ready (patch 1 alone fails to build)"
# the other build tests share the directory: one of them may be the next
# to open it, and so the one that cleans up
dir=$(json "$TMP/warm.json" "d['archs'][0]['build_dir']")
recovered=$(cat "$dir/recoveries" 2>/dev/null | wc -l)

build_config "$TMP/slow.conf" arch.x86_64.timeout 1s
lorebot --config "$TMP/slow.conf" build --repo "$R" --series bisect \
	--arch x86_64,riscv --log-dir "$TMP/logs2" --json >"$TMP/out.json" 2>"$TMP/out.err"
rc=$?
J=$TMP/out.json
is "$(json $J "d['archs'][0]['status']")" infra "x86_64: infra"
like "$(json $J "d['archs'][0]['infra']")" "^timeout: make x86_64 was stopped after 1 s" \
	"says it timed out"
is "$(json $J "d['archs'][0]['infra_patch']")" 1 "while building patch 1"
is "$(json $J "[p['status'] for p in d['archs'][0]['patches']]")" "['infra', 'skipped']" \
	"patch 2 was not built"
is "$(json $J "[f for f in d['archs'][0]['findings'] if f['new']]")" "[]" \
	"nothing is blamed on the series"
is "$(json $J "d['archs'][1]['arch']")" riscv "the next job ran"
is "$(json $J "d['archs'][1]['status']")" errors "and found patch 1's error"
like "$(json $J "d['archs'][1]['bisection'][0]")" "patch 1/2 breaks bisection on riscv" \
	"with the bisection break"
is "$rc" 1 "findings elsewhere: exit 1"

lorebot --config "$TMP/slow.conf" build --repo "$R" --series bisect \
	--arch x86_64 --log-dir "$TMP/logs3" --json >"$TMP/only.json" 2>"$TMP/only.err"
is "$?" 3 "only the timeout: exit 3"
is "$(json "$TMP/only.json" "d['archs'][0]['build_dir']")" "$dir" "the same directory"
is "$(test "$(wc -l <"$dir/recoveries")" -gt "$recovered" && echo yes)" yes \
	"the interrupted step was cleaned up by the next build there"
like "$(tail -n 1 "$dir/recoveries")" "^[0-9]+ [0-9]+ removed [0-9]+ files$" \
	"and the directory says so"

lorebot --config "$TMP/bot.conf" build --repo "$R" --series bisect \
	--arch x86_64 --log-dir "$TMP/logs4" --json >"$TMP/again.json" 2>"$TMP/again.err"
is "$?" 1 "without the limit: built"
J=$TMP/again.json
is "$(json $J "[p['status'] for p in d['archs'][0]['patches']]")" "['errors', 'ok']" \
	"the directory recovered: the same result as ever"
ok "the image was built" test -s "$(json $J "d['archs'][0]['image']")"

done_testing

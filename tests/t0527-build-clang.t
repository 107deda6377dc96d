#!/bin/sh
# clang on the touched files (build.clang): a patch whose variable is
# used uninitialized on one path builds without a word from gcc (the
# kernel turns -Wmaybe-uninitialized off, also with W=1) and gets exactly
# clang's -Wsometimes-uninitialized, new, on its patch and line, in
# compiler format; what clang says about the base's file is never new;
# a docs-only series has no clang finding.  (Which arches build.clang
# names: t-kcheck.)  clang's own O= directory is made once per base
# build directory (its prepare), then only the touched files compile.
# schedule: last 4.0 (builds on the base build directory of x86_64; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

for p in clang ld.lld llvm-objcopy; do
	command -v $p >/dev/null || { echo "1..0 # SKIP no $p (Debian packages clang, lld, llvm)"; exit 0; }
done
build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" uninit "$FIXTURES/build/clang-uninit"
apply_series "$R" docs "$FIXTURES/build/docs"
build_config "$TMP/bot.conf" build.clang "x86_64, riscv"

# clang's -Wsometimes-uninitialized at the if; gcc and W=1 say nothing
checker_finding uninit clang clang \
	"variable 'buf' is used uninitialized whenever 'if' condition is false" \
	"$(printf '^\tif (s) {')"
line=$LINE
is "$(json $J "$NEW[0]['option']")" "-Wsometimes-uninitialized" "with its option"
BD=$(json $J "$X['build_dir']")
ok "clang's O= directory is obj/.lorebot-clang, with a clang .config" \
	grep -qx "CONFIG_CC_IS_CLANG=y" "$BD/obj/.lorebot-clang/.config"
ok "gcc's .config is left as it was" grep -qx "CONFIG_CC_IS_GCC=y" "$BD/obj/.config"
ok "the base's clang diagnostics of mm/util.c are kept" test -e "$BD/clang"

lorebot --config "$TMP/bot.conf" build --repo "$R" --series uninit \
	--arch x86_64 --log-dir "$TMP/logs-t" >"$TMP/out.txt" 2>&1
is "$?" 1 "text: exit 1"
like "$(cat "$TMP/out.txt")" \
	"mm/util.c:$line:[0-9]+: warning: variable 'buf' is used uninitialized.*\[-Wsometimes-uninitialized\] \[patch 1/1, clang\]" \
	"text: the warning in compiler format, attributed"
unlike "$(cat "$TMP/logs-t"/x86_64/*-clang-config.log 2>/dev/null)" "." \
	"a second series on the same .config does not configure clang again"

checker_off uninit clang --no-clang "gcc does not see it"
checker_docs clang

done_testing

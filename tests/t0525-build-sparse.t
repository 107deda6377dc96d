#!/bin/sh
# sparse on the touched files: a memcpy() from a __user pointer is one
# new sparse warning (with its "expected/got" lines) on the patch that
# adds it, in compiler format; what sparse says about the base's file is
# never new; a docs-only series has no sparse finding at all.
# schedule: last 5.0 (four builds on the base build directory of x86_64; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" sparse-user "$FIXTURES/build/sparse-user"
apply_series "$R" docs "$FIXTURES/build/docs"
build_config "$TMP/bot.conf" build.sparse true

# the address-space warning with what sparse expected and got, at the memcpy()
checker_finding sparse-user sparse sparse \
	"incorrect type in argument 2 \(different address spaces\); expected .*; got .*__user" \
	"$(printf '^\tmemcpy(p, src, len);')"
line=$LINE

lorebot --config "$TMP/bot.conf" build --repo "$R" --series sparse-user \
	--arch x86_64 --log-dir "$TMP/logs-t" >"$TMP/out.txt" 2>&1
is "$?" 1 "text: exit 1"
like "$(cat "$TMP/out.txt")" \
	"mm/util.c:$line:[0-9]+: warning: incorrect type in argument 2 \(different address spaces\).* \[patch 1/1, sparse\]" \
	"text: the warning in compiler format, attributed"

checker_off sparse-user sparse --no-sparse "gcc does not see the __user misuse"
checker_docs sparse coccinelle

done_testing

#!/bin/sh
# Coccinelle on the touched files: a kmalloc() followed by a memset() to
# zero is the tree's own zalloc-simple rule's finding, and an allocation
# test that repeats itself (!p || !p) doubletest's, both new on the patch
# that adds them, in compiler format and named by their rule; what the
# rules find in the base's file is never new.  zalloc-simple only asks for
# a nicer spelling ("style": listed, not the verdict's), doubletest is a
# bug class (a warning).  (One build: every rule is a spatch run, minutes.)
# schedule: last 6.0 (builds on the base build directory of x86_64, Coccinelle; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" cocci-zalloc "$FIXTURES/build/cocci-zalloc"
build_config "$TMP/bot.conf" build.coccicheck true

lorebot --config "$TMP/bot.conf" build --repo "$R" --series cocci-zalloc \
	--arch x86_64 --log-dir "$TMP/logs" --no-sparse --json >"$TMP/out.json" 2>"$TMP/err"
is "$?" 1 "exit 1: a new warning (doubletest's)"
J=$TMP/out.json
X="d['archs'][0]"
NEW="sorted([f for f in $X['findings'] if f['new']], key=lambda f: f['line'])"
is "$(json $J "$X['status']")" warnings "status warnings"
is "$(json $J "[(f['patch'], f['tool'], f['file'], f['severity'], f['option'], f['style']) for f in $NEW]")" \
	"[(1, 'coccinelle', 'mm/util.c', 'warning', 'api/alloc/zalloc-simple', True), (1, 'coccinelle', 'mm/util.c', 'warning', 'tests/doubletest', False)]" \
	"two new findings of patch 1, each named by its rule; zalloc-simple's is style"
file_line() {
	git -C "$R" show "cocci-zalloc:mm/util.c" | grep -nF "$1" | cut -d: -f1
}
LINE=$(file_line 'p = kmalloc(len + 1, GFP_KERNEL);')
like "$(json $J "$NEW[0]['text']")" \
	"^mm/util.c:$LINE:[0-9]+: warning: kzalloc should be used for p, instead of kmalloc/memset \\[api/alloc/zalloc-simple\\]\$" \
	"zalloc-simple's at the kmalloc(), in compiler format, with its rule"
LINE=$(file_line 'if (!p || !p)')
like "$(json $J "$NEW[1]['text']")" \
	"^mm/util.c:$LINE:[0-9]+: warning: duplicated argument to && or \\|\\| \\[tests/doubletest\\]\$" \
	"doubletest's at the test"
is "$(json $J "$X['patches'][0]['coccicheck_files']")" 1 "coccicheck went over the one touched file"
ok "its log is kept" test -s "$(json $J "$X['patches'][0]['coccicheck_log']")"
is "$(json $J "[f['message'] for f in $X['findings'] if not f['new'] and f['patch']]")" \
	"[]" "no pre-existing finding is attributed to the patch"
is "$(json $J "[f['option'] for f in $X['findings'] if f['tool'] == 'coccinelle' and not f['option']]")" \
	"[]" "every Coccinelle finding, the base's too, is named by its rule"
is "$(json $J "$X['make_checks']")" \
	"['make ARCH=x86_64 O=build C=2 CHECK=\$PWD/scripts/coccicheck MODE=report mm/util.o']" \
	"the recipe without lorebot: after the build, the make line that shows them"

done_testing

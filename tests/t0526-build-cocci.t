#!/bin/sh
# Coccinelle on the touched files: a kmalloc() followed by a memset() to
# zero is the tree's own zalloc-simple rule's finding, new on the patch
# that adds it, in compiler format; what the rules find in the base's
# file is never new.  (One build: every rule is a spatch run, minutes.)
# schedule: last 6.0 (builds on the base build directory of x86_64, Coccinelle; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" cocci-zalloc "$FIXTURES/build/cocci-zalloc"
build_config "$TMP/bot.conf" build.coccicheck true

lorebot --config "$TMP/bot.conf" build --repo "$R" --series cocci-zalloc \
	--arch x86_64 --no-sparse --log-dir "$TMP/logs" --json >"$TMP/out.json" 2>"$TMP/err"
is "$?" 1 "exit 1 (a new warning)"
J=$TMP/out.json
X="d['archs'][0]"
new="[f for f in $X['findings'] if f['new']]"
is "$(json $J "[(f['patch'], f['tool'], f['file'], f['severity']) for f in $new]")" \
	"[(1, 'coccinelle', 'mm/util.c', 'warning')]" \
	"exactly one new finding: Coccinelle's, in mm/util.c, patch 1"
like "$(json $J "$new[0]['message']")" "kzalloc should be used for p, instead of kmalloc/memset" \
	"zalloc-simple's message"
line=$(git -C "$R" show cocci-zalloc:mm/util.c | grep -n 'p = kmalloc(len + 1, GFP_KERNEL);' | cut -d: -f1)
is "$(json $J "$new[0]['line']")" "$line" "at the line of the kmalloc()"
is "$(json $J "$X['patches'][0]['coccicheck_files']")" 1 "coccicheck checked the one touched file"
is "$(json $J "[f['message'] for f in $X['findings'] if f['tool'] == 'coccinelle' and not f['new'] and f['patch']]")" \
	"[]" "no pre-existing Coccinelle finding is attributed to the patch"
like "$(json $J "$new[0]['text']")" \
	"^mm/util.c:$line:[0-9]+: warning: kzalloc should be used" "in compiler format"

done_testing

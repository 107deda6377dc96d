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

# zalloc-simple's message, at the kmalloc()
checker_finding cocci-zalloc coccinelle coccicheck \
	"kzalloc should be used for p, instead of kmalloc/memset" \
	'p = kmalloc(len + 1, GFP_KERNEL);' --no-sparse
like "$(json $J "$NEW[0]['text']")" \
	"^mm/util.c:$LINE:[0-9]+: warning: kzalloc should be used" "in compiler format"

done_testing

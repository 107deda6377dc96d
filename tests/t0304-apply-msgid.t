#!/bin/sh
# lorebot apply --msgid: the thread comes from lore (a real public-inbox)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

MM=$(mm_repo) || skip_all "no mm-new stand-in (ci/mm-tree.sh)"
lab_setup
R=$TMP/mm.git
git clone -q --bare --shared "$MM" "$R"

# patch 3/4 of 004 names the series; the report is the same as from the mbox
lorebot apply --msgid '<20250115033807.46664-4-21cnbao@gmail.com>' --url "$URL" \
	--repo "$R" --json >"$TMP/msgid.json" 2>"$TMP/msgid.err"
is "$?" 1 "004 fetched by a patch's Message-ID does not apply: exit 1"
lorebot apply --mbox "$FIXTURES/lore/004_476fa21b8430df59.mbox" --repo "$R" \
	--json >"$TMP/mbox.json" 2>/dev/null
is "$(json "$TMP/msgid.json" "[(p['n'], p['status']) for p in d['patches']]")" \
	"$(json "$TMP/mbox.json" "[(p['n'], p['status']) for p in d['patches']]")" \
	"the same patches and outcomes as from the mbox"
is "$(json "$TMP/msgid.json" "d['patches'][1]['file']")" arch/arm64/include/asm/tlbflush.h \
	"the first failing file of patch 2/4"

# the inbox from the configuration
printf '[list "linux-mm"]\n\turl = %s\n' "$URL" >"$TMP/conf"
lorebot --config "$TMP/conf" apply --msgid 20250115033807.46664-1-21cnbao@gmail.com \
	--repo "$R" --json >"$TMP/conf.json" 2>/dev/null
is "$(json "$TMP/conf.json" "d['patches'][0]['status']")" applied \
	"--msgid with the list's url from the configuration"

lorebot apply --msgid no-such-message@example.org --url "$URL" --repo "$R" \
	>/dev/null 2>"$TMP/err"
is "$?" 3 "an unknown Message-ID exits 3"
like "$(cat "$TMP/err")" "no-such-message@example.org> is not known" "and says so"
lorebot apply --msgid x@y --repo "$R" >/dev/null 2>"$TMP/err"
is "$?" 3 "no inbox to ask: exit 3"
like "$(cat "$TMP/err")" "no inbox to ask" "and says so"
lorebot apply --msgid x@y --mbox /dev/null --repo "$R" >/dev/null 2>&1
is "$?" 2 "--msgid and --mbox together: usage error"
done_testing

#!/bin/sh
# lorebot check --msgid: the thread of a message, fetched from lore (a
# real public-inbox serving the fixture threads), checked as --mbox
# checks it; the inbox from --url or lorebot.list.<name>.url.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

command -v public-inbox-httpd >/dev/null || skip_all "public-inbox is not installed"
lab_setup
ONE="--checkers=-all,one-line-args"
M004=$FIXTURES/lore/004_476fa21b8430df59.mbox

# patch 3/4 of 004 names the thread: the same findings as from the mbox
mkdir "$TMP/tmpdir"
TMPDIR=$TMP/tmpdir lorebot check --msgid '<20250115033807.46664-4-21cnbao@gmail.com>' \
	--url "$URL" --json $ONE >"$TMP/msgid.json" 2>"$TMP/err"
is "$?" 0 "--msgid: exit 0"
lorebot check --mbox "$M004" --json $ONE >"$TMP/mbox.json" 2>/dev/null
q="sorted((f['patch'], f['file'], f['line']) for f in d['findings'])"
is "$(json "$TMP/msgid.json" "$q")" "$(json "$TMP/mbox.json" "$q")" \
	"--msgid: the findings of the mbox"
is "$(json "$TMP/msgid.json" "len(d['findings'])")" 6 "--msgid: the six one-line-args findings"
is "$(ls "$TMP/tmpdir")" "" "the fetched thread is not left behind"

# the inbox from git's configuration, the way a developer sets it
git config --global lorebot.list.linux-mm.url "$URL"
(cd "$TMP" && lorebot check --msgid 20250115033807.46664-1-21cnbao@gmail.com $ONE) \
	>"$TMP/conf.txt" 2>/dev/null
like "$(cat "$TMP/conf.txt")" '^== mm: batched unmap lazyfree large folios during reclamation \(v3, 4 patches\)$' \
	"--msgid with lorebot.list.linux-mm.url from git config"
git config --global --unset lorebot.list.linux-mm.url

lorebot check --msgid no-such-message@example.org --url "$URL" >/dev/null 2>"$TMP/err"
is "$?" 3 "an unknown Message-ID: exit 3"
like "$(cat "$TMP/err")" "no-such-message@example.org> is not known" "an unknown Message-ID: said"
(cd "$TMP" && lorebot check --msgid x@y) >/dev/null 2>"$TMP/err"
is "$?" 3 "no inbox to ask: exit 3"
like "$(cat "$TMP/err")" "no inbox to ask" "no inbox to ask: said"
lorebot check --msgid x@y --mbox "$M004" >/dev/null 2>&1
is "$?" 2 "--msgid and --mbox: a usage error"
lorebot check --msgid x@y --fix >/dev/null 2>&1
is "$?" 2 "--msgid and --fix: a usage error"
lorebot check --url "$URL" >/dev/null 2>&1
is "$?" 2 "--url without --msgid: a usage error"
done_testing

#!/bin/sh
# A base-commit the tree lacks (issue 38, item 9): every version naming
# one fetched every remote's branches, whatever git.fetchinterval said,
# so a stranger mailing versions with made-up base-commits had the bot
# fetch its upstream trees once each.  Now such a fetch happens at most
# once a minute; the commit itself is still asked for by its id.  Three
# applies, each naming another unknown base-commit, against a local
# upstream (remote.up).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo
git clone -q --bare "$R" "$TMP/up.git"
printf '[remote "up"]\n\turl = %s\n\tbranch = mm-new\n' "$TMP/up.git" >bot.conf
# the first apply fetches (never fetched before), as usual
newfile mm/first.c | mkpatch first >first.mbox
lorebot --config bot.conf apply --mbox first.mbox --repo "$R" --json >first.json 2>first.err
like "$(cat first.err)" "fetched mm-new from up" "a first apply fetches the upstream tree"
n=0
for i in 1 2 3; do
	{ newfile "mm/made-up$i.c"; printf '\nbase-commit: %s\n' "$(printf 'made-up %s' "$i" | sha1sum | cut -c1-40)"; } |
		mkpatch "madeup$i" >"madeup$i.mbox"
	lorebot --config bot.conf apply --mbox "madeup$i.mbox" --repo "$R" --json \
		>"madeup$i.json" 2>"madeup$i.err"
	grep -q "fetched mm-new from up" "madeup$i.err" && n=$((n + 1))
done
is "$n" 1 "three versions with made-up base-commits: the branches fetched once, not three times"
like "$(cat madeup3.err)" "not again within 60 s" "... the log says why not"
like "$(cat madeup3.err)" "base-commit [0-9a-f]{40} not given by up" \
	"... the commit itself was still asked for by its id"
# another remote configured within the minute is not the one fetched: it is
git clone -q --bare "$R" "$TMP/up2.git"
printf '[remote "up"]\n\turl = %s\n\tbranch = mm-new\n' "$TMP/up2.git" >bot2.conf
{ newfile mm/made-up4.c; printf '\nbase-commit: %s\n' "$(printf 'made-up 4' | sha1sum | cut -c1-40)"; } |
	mkpatch madeup4 >madeup4.mbox
lorebot --config bot2.conf apply --mbox madeup4.mbox --repo "$R" --json >madeup4.json 2>madeup4.err
like "$(cat madeup4.err)" "fetched mm-new from up" \
	"a remote whose URL changed within the minute is fetched (the limit is per remote set)"
done_testing

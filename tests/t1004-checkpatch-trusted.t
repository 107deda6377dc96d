#!/bin/sh
# checkpatch.pl and its data come from a tree the bot trusts (the first
# git.base branch), never from the commit a mail's base-commit: names:
# series A changes scripts/checkpatch.pl and is applied (its tip is
# public); series B says base-commit: <A's tip>.  B's check must run
# mm-new's checkpatch.pl, not A's.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo
sec_trusted_checkpatch

# series A: its own checkpatch.pl, which leaves a marker when run
git -C "$S" checkout -q -b evil
fake_checkpatch ATTACKER "$TMP/pwned" >"$S/scripts/checkpatch.pl"
git -C "$S" commit -qam "mm: improve checkpatch"
git -C "$S" format-patch -q --stdout -1 >A.mbox
lorebot apply --mbox A.mbox --repo "$R" --json >A.json 2>A.err
is "$?" 0 "series A (a new scripts/checkpatch.pl) applies"
TIP=$(json A.json "d['tip']")
ok "A's tip is in the repository" git --git-dir="$R" cat-file -e "$TIP"
ok "A's tip has A's checkpatch.pl" sh -c "git --git-dir='$R' show '$TIP:scripts/checkpatch.pl' | grep -q ATTACKER"
rm -f "$TMP/pwned"

# series B, on A's tip
{ newfile mm/b.c; printf '\nbase-commit: %s\n' "$TIP"; } | mkpatch onA >B.mbox
lorebot check --mbox B.mbox --repo "$R" --json --checkers=-all,checkpatch >B.json 2>B.err
rc=$?
ok "B's check ran (exit $rc)" test "$rc" = 0 -o "$rc" = 1
ok "A's checkpatch.pl did not run" test ! -e "$TMP/pwned"
rules=$(json B.json "sorted(set(f['rule'] for f in d['findings']))")
like "$rules" "checkpatch:RAN_TRUSTED" "mm-new's checkpatch.pl judged B"
unlike "$rules" "RAN_ATTACKER" "A's did not"
is "$(json B.json "d['series'][0]['base'] if isinstance(d['series'], list) else d['series']['base']")" "$TIP" \
	"B was still applied to its base-commit (the tree is data)"
done_testing

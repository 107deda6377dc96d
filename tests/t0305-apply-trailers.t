#!/bin/sh
# The commits lorebot apply makes carry the trailers reviewers gave in
# replies (to the patch, to a reply to it, to the cover letter) and a Link:,
# in b4's order and form (issue 20); b4 0.12 (b4 am -t -l, then git am) is
# the oracle where it reads the input.  apply.trailers = mail keeps only
# the mail's own.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

S=$FIXTURES/series
R=$TMP/tree.git

# a tree the fixture's patches apply to: mm/frob.c and mm/grob.c
mkdir -p "$TMP/w/mm"
printf 'int frob(void)\n{\n}\n' >"$TMP/w/mm/frob.c"
printf 'int grob(void)\n{\n}\n' >"$TMP/w/mm/grob.c"
git -C "$TMP/w" init -q -b mm-new && git -C "$TMP/w" add mm &&
	git -C "$TMP/w" commit -q -m base && git clone -q --bare "$TMP/w" "$R" ||
	echo "Bail out! cannot make the tree"

msgs() {	# the commit messages of a branch, oldest first, "%%" between
	git --git-dir="$R" log --reverse --format='%B%%' "mm-new..$1"
}

lorebot apply --mbox "$S/trailers.mbox" --repo "$R" --json >"$TMP/all.json" 2>"$TMP/all.err"
is "$?" 0 "the series applies"
B=$(json "$TMP/all.json" "d['branch']")
msgs "$B" >"$TMP/all.msgs"
is "$(cat "$TMP/all.msgs")" "mm: frob returns 1

Part 1.

Signed-off-by: Alice Dev <alice@example.org>
Reviewed-by: Dave Reviewer <dave@example.org>
Acked-by: Dave Reviewer <dave@example.org>
Link: https://lore.kernel.org/r/t-1
%
mm: grob returns 2

Part 2.

Signed-off-by: Alice Dev <alice@example.org>
Tested-by: Eve Tester <eve@example.com>
Acked-by: Dave Reviewer <dave@example.org>
Link: https://lore.kernel.org/r/t-2
%" "the commits carry the replies' trailers (the patch's, then the cover letter's) and Link:"

cat >"$TMP/mail.conf" <<EOF
[apply]
	trailers = mail
EOF
lorebot --config "$TMP/mail.conf" apply --mbox "$S/trailers.mbox" --repo "$R" --no-branch \
	--json >"$TMP/mail.json"
tip=$(json "$TMP/mail.json" "d['tip']")
is "$(git --git-dir="$R" log -1 --format=%b "$tip" | grep -c ': ')" 1 \
	"apply.trailers = mail: only the mail's own Signed-off-by"
lorebot apply --trailers mail --mbox "$S/trailers.mbox" --repo "$R" --no-branch \
	--json >"$TMP/opt.json"
is "$(git --git-dir="$R" log -2 --format=%B "$(json "$TMP/opt.json" "d['tip']")")" \
	"$(git --git-dir="$R" log -2 --format=%B "$tip")" "--trailers mail: the same messages"

# Link: and Closes: given in replies, a mangled address (b4 0.12 reads neither)
lorebot apply --mbox "$S/trailers-more.mbox" --repo "$R" --no-branch --json >"$TMP/more.json"
first=$(json "$TMP/more.json" "d['patches'][0]['commit']")
is "$(git --git-dir="$R" log -1 --format=%b "$first" | sed -n '/^Signed-off-by/,$p')" \
	"Signed-off-by: Alice Dev <alice@example.org>
Tested-by: Eve Tester <eve@example.com>
Closes: https://bugzilla.kernel.org/show_bug.cgi?id=1
Link: https://lore.kernel.org/r/report@example.com
Link: https://lore.kernel.org/r/t-1" \
	"Closes: and Link: from a reply, and a trailer whose address a mail client mangled"

# b4 as the oracle: b4 am -t -l through the local public-inbox, then git am
if command -v b4 >/dev/null; then
	. "$LOREBOT_SRC/tests/lore-lib.sh"
	lab_setup "$S/trailers.mbox"
	b4am t-0 b4 -t -l
	is "$?" 0 "b4 am -t -l exits 0"
	git clone -q "$R" "$TMP/am" && git -C "$TMP/am" checkout -q mm-new &&
		git -C "$TMP/am" -c user.name=t -c user.email=t@t am -q "$TMP/b4.mbx"
	is "$?" 0 "git am takes b4's mbox"
	printf '[apply]\n\tlink = %s%%s\n' "$URL" >"$TMP/lab.conf"
	lorebot --config "$TMP/lab.conf" apply --mbox "$S/trailers.mbox" --repo "$R" \
		--no-branch --json >"$TMP/lab.json"
	git --git-dir="$R" log --reverse --format='%B%%' "$(json "$TMP/lab.json" "d['tip']")" \
		-2 >"$TMP/ours.msgs"
	git -C "$TMP/am" log --reverse --format='%B%%' -2 >"$TMP/b4.msgs"
	ok "the commit messages are b4's, byte for byte" cmp "$TMP/ours.msgs" "$TMP/b4.msgs"
	cmp -s "$TMP/ours.msgs" "$TMP/b4.msgs" || diff "$TMP/b4.msgs" "$TMP/ours.msgs" | sed 's/^/# /'
fi
done_testing

#!/bin/sh
# lorebot check on branches prepared with "b4 prep" (b4 run offline): the
# series is the branch's own range, found through b4's data, with its
# cover letter; for each of b4's cover letter strategies (commit,
# branch-description, tip-commit).  Revision and prefixes come from b4's
# tracking data.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-devcheck.sh"

command -v b4 >/dev/null || skip_all "b4 is not installed"
L=$TMP/linux
dev_clone "$L" mm arch/arm64 arch/riscv arch/x86 || skip_all "cannot clone $MM"
git config --global user.name "lorebot test"
git config --global user.email test@lorebot.invalid
lore_patch 1/4 >"$TMP/p1.mbox"
CK="--checkers=-checkpatch"

cat >"$TMP/cover" <<'EOF'
mm: batched unmap lazyfree large folios during reclamation

# b4 removes comment lines like this one
Commit 735ecdfaf4e8 ("mm/vmscan: avoid split lazyfree THP during
shrink_folio_list()") prevents the splitting of MADV_FREE'd THP in
madvise.c.  This series is specifc about flushing TLBs for a range.

Signed-off-by: lorebot test <test@lorebot.invalid>
EOF

# prep STRATEGY NAME: a b4 prep branch with 004 1/4 and the port of 2/4
prep() {
	git -C "$L" checkout -q mm-new &&
	git -C "$L" config b4.prep-cover-strategy "$1" &&
	(cd "$L" && b4 prep -n "$2" -f mm-new) >/dev/null 2>&1 &&
	case $1 in
	tip-commit)
		# the cover letter stays at the tip: patches go under it
		git -C "$L" tag "cover-$2" HEAD &&
		git -C "$L" reset -q --hard HEAD~1 &&
		dev_am "$L" "$TMP/p1.mbox" "$DEVFIX/004-2-port-6.12.patch" &&
		git -C "$L" cherry-pick --allow-empty "cover-$2" >/dev/null
		;;
	*)
		dev_am "$L" "$TMP/p1.mbox" "$DEVFIX/004-2-port-6.12.patch"
		;;
	esac &&
	(cd "$L" && EDITOR="cp $TMP/cover" b4 prep --edit-cover) >/dev/null 2>&1
}

for strategy in commit branch-description tip-commit; do
	if ! prep $strategy "tlb-$strategy"; then
		ok "b4 prep ($strategy) makes a branch" false
		continue
	fi
	(cd "$L" && lorebot check --json $CK) >"$TMP/$strategy.json" 2>"$TMP/err"
	is "$?" 0 "$strategy: exit 0"
	J=$TMP/$strategy.json
	is "$(json $J "(d['range']['kind'], d['range']['desc'], d['range']['base'])")" \
		"('b4', 'b4/tlb-$strategy (b4 prep)', '$(git -C "$L" rev-parse mm-new)')" \
		"$strategy: b4's series, based where it forked"
	is "$(json $J "[p['subject'] for p in d['series'][0]['patches']]")" \
		"['[PATCH 1/2] mm: Set folio swapbacked iff folios are dirty in try_to_unmap_one', '[PATCH 2/2] mm: Support tlbbatch flush for a range of PTEs']" \
		"$strategy: the two patches, not the cover letter commit"
	is "$(json $J "d['range']['cover_letter']")" True "$strategy: with its cover letter"
	is "$(json $J "[(f['patch'], f['line'], f['quote']) for f in d['findings'] if f['rule'] == 'codespell']")" \
		"[(0, 3, 'specifc')]" "$strategy: the cover letter is checked (comment lines removed)"
	is "$(json $J "len([f for f in d['findings'] if f['rule'] == 'one-line-args' and f['patch'] == 2])")" 6 \
		"$strategy: the six one-line-args findings on patch 2"
	is "$(json $J "[f['rule'] for f in d['findings'] if f['rule'] in ('cover-letter', 'base-commit')]")" "[]" \
		"$strategy: b4 sends a cover letter and base-commit"
done

# a cover letter as b4 prep wrote it, never edited: EDITME left in
git -C "$L" checkout -q mm-new
git -C "$L" config b4.prep-cover-strategy commit
(cd "$L" && b4 prep -n untouched -f mm-new) >/dev/null 2>&1
dev_am "$L" "$TMP/p1.mbox" "$DEVFIX/004-2-port-6.12.patch"
(cd "$L" && lorebot check --json --checkers=-all,cover-letter) >"$TMP/editme.json" 2>"$TMP/err"
is "$?" 1 "an untouched b4 cover letter: exit 1"
is "$(json "$TMP/editme.json" "[(f['rule'], f['severity'], f['line']) for f in d['findings']][:2]")" \
	"[('cover-letter', 'error', None), ('cover-letter', 'error', 1)]" \
	"its subject and its first line are b4's template"
like "$(json "$TMP/editme.json" "d['findings'][0]['quote']")" "EDITME: cover title for untouched" \
	"quoting the subject b4 wrote"

# revision and prefixes from b4's tracking data
git -C "$L" checkout -q b4/tlb-commit
(cd "$L" && b4 prep --force-revision 3 && b4 prep --set-prefixes RFC) >/dev/null 2>&1
(cd "$L" && lorebot check $CK) >"$TMP/v3.txt" 2>&1
like "$(cat "$TMP/v3.txt")" '^== b4/tlb-commit \(b4 prep, v3\): 2 patches on' "the revision from b4's tracking"
like "$(cat "$TMP/v3.txt")" '^\[RFC PATCH v3 2/2\] mm: Support tlbbatch flush for a range of PTEs$' \
	"subjects as b4 send writes them: prefixes and revision"
like "$(cat "$TMP/v3.txt")" '^\[RFC PATCH v3 0/2\] mm: batched unmap lazyfree large folios during reclamation$' \
	"the cover letter's subject"

# a branch b4 does not manage is an ordinary branch again
git -C "$L" checkout -q -b plain b4/tlb-commit
git -C "$L" branch -q -u origin/mm-new
(cd "$L" && lorebot check --json $CK) >"$TMP/plain.json" 2>/dev/null
is "$(json "$TMP/plain.json" "(d['range']['kind'], len(d['range']['commits']), d['range']['cover_letter'])")" \
	"('upstream', 3, False)" "not a b4 branch: the upstream range, cover commit included"
done_testing

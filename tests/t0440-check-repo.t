#!/bin/sh
# lorebot check --repo: the series is applied (without touching the
# repository), the rules read whole functions, Fixes: ids are looked up,
# checkpatch.pl comes from the tree; patches that do not apply are
# checked from their hunks.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

MM=$(mm_repo) || skip_all "no mm tree (ci/mm-tree.sh)"
R=$TMP/linux.git
git clone -q --bare --shared "$MM" "$R" || skip_all "cannot clone $MM"
BASE=$(git --git-dir="$R" rev-parse mm-new)
HEAD=$BASE
IMPORT_SUBJECT=$(git --git-dir="$R" log -1 --format=%s "$BASE")

# commit_edit "SUBJECT" "BODY" FILE PYTHON: a commit that edits FILE
# with PYTHON (s is the file's text), made without a work tree; the
# last paragraph of BODY is the trailer block with the Signed-off-by
commit_edit() {
	git --git-dir="$R" show "$HEAD:$3" >"$TMP/file"
	edit_file "$TMP/file" "$4" || return 1
	blob=$(git --git-dir="$R" hash-object -w "$TMP/file")
	GIT_INDEX_FILE=$TMP/index git --git-dir="$R" read-tree "$HEAD"
	GIT_INDEX_FILE=$TMP/index git --git-dir="$R" update-index --cacheinfo "100644,$blob,$3"
	tree=$(GIT_INDEX_FILE=$TMP/index git --git-dir="$R" write-tree)
	HEAD=$(printf '%s\n\n%s\nSigned-off-by: lorebot test <test@lorebot.invalid>\n' "$1" "$2" |
		git --git-dir="$R" commit-tree "$tree" -p "$HEAD")
}

commit_edit "mm: khugepaged: report file scan progress" \
"Fixes: ${BASE%"${BASE#????????????}"} (\"$IMPORT_SUBJECT\")
Fixes: ${BASE%"${BASE#????????????}"} (\"not the subject\")
Fixes: 0123456789ab (\"mm: not in this tree\")" mm/khugepaged.c \
"s.replace('''				    struct file *file, pgoff_t start,
				    struct collapse_control *cc)
{
	struct folio *folio = NULL;''', '''				    struct file *file, pgoff_t start,
				    unsigned int *cur_progress,
				    struct collapse_control *cc)
{
	struct folio *folio = NULL;''', 1).replace('''	rcu_read_unlock();

	if (result == SCAN_SUCCEED) {
		if (cc->is_khugepaged &&
		    present < HPAGE_PMD_NR - khugepaged_max_ptes_none) {''', '''	rcu_read_unlock();
	if (cur_progress)
		*cur_progress = HPAGE_PMD_NR;

	if (result == SCAN_SUCCEED) {
		if (cc->is_khugepaged &&
		    present < HPAGE_PMD_NR - khugepaged_max_ptes_none) {''', 1)" ||
	skip_all "cannot edit mm/khugepaged.c"
commit_edit "mm: khugepaged: skip lazy-free folios" "Skip them.
" mm/khugepaged.c \
"s.replace('''		folio = page_folio(page);

		if (!folio_test_anon(folio)) {
			result = SCAN_PAGE_ANON;''', '''		folio = page_folio(page);

		if (cc->is_khugepaged && !pte_dirty(pteval) &&
		    folio_test_lazyfree(folio)) {
			result = SCAN_FAIL;
			goto out_unmap;
		}

		if (!folio_test_anon(folio)) {
			result = SCAN_PAGE_ANON;''', 1)" ||
	skip_all "cannot edit mm/khugepaged.c"
git --git-dir="$R" format-patch -q --stdout --base="$BASE" "$BASE..$HEAD" >"$TMP/series.mbox"
ok "the series is made" test -s "$TMP/series.mbox"

before=$(git --git-dir="$R" count-objects -v; git --git-dir="$R" for-each-ref)
lorebot check --mbox "$TMP/series.mbox" --repo "$R" --json --checkers=-codespell \
	>"$TMP/out.json" 2>"$TMP/err"
is "$?" 0 "--repo: exit 0 (warnings only)"
after=$(git --git-dir="$R" count-objects -v; git --git-dir="$R" for-each-ref)
is "$after" "$before" "--repo: the repository is not written to"

J=$TMP/out.json
is "$(json $J "[(p['n'], p['applied']) for p in d['series'][0]['patches']]")" \
	"[(1, True), (2, True)]" "both patches applied"
is "$(json $J "d['series'][0]['base']")" "$BASE" "applied to its base-commit"

# whole functions: the xas_for_each() loop that breaks early is in view
pa="[f for f in d['findings'] if f['rule'] == 'progress-accounting']"
is "$(json $J "[(f['patch'], f['file'], f['severity']) for f in $pa]")" \
	"[(1, 'mm/khugepaged.c', 'warning')]" "progress-accounting: one warning"
like "$(json $J "$pa[0]['message']")" "loop that can stop early" \
	"progress-accounting: sees the loop's break with the whole function"
is "$(json $J "$pa[0]['line']")" \
	"$(git --git-dir="$R" show "$HEAD~1:mm/khugepaged.c" | grep -n '^		\*cur_progress = HPAGE_PMD_NR;$' | cut -d: -f1)" \
	"progress-accounting: the post-image line of the write"
lf="[f for f in d['findings'] if f['rule'] == 'lazyfree-droppable']"
is "$(json $J "[(f['patch'], f['file']) for f in $lf]")" "[(2, 'mm/khugepaged.c')]" \
	"lazyfree-droppable: the skip in hpage_collapse_scan_pmd()"
like "$(json $J "$lf[0]['suggestion']")" "VM_DROPPABLE" "lazyfree-droppable: suggestion"

# Fixes: looked up in the tree
fx="[f['message'] for f in d['findings'] if f['rule'] == 'fixes-tag']"
is "$(json $J "len($fx)")" 2 "fixes-tag: two of three tags are wrong"
is "$(json $J "any(m.endswith(' is \"$IMPORT_SUBJECT\", not \"not the subject\"') for m in $fx)")" \
	True "fixes-tag: a wrong subject"
like "$(json $J "' | '.join($fx)")" "0123456789ab is not in" "fixes-tag: an unknown commit"
# checkpatch.pl from the tree, with the tree's git; beside fixes-tag its
# unknown commit id is the same problem, reported once
lorebot check --mbox "$TMP/series.mbox" --repo "$R" --json --checkers=-codespell,-fixes-tag \
	>"$TMP/nofixes.json" 2>/dev/null
is "$(json "$TMP/nofixes.json" "[f['rule'] for f in d['findings'] if f['rule'] == 'checkpatch:UNKNOWN_COMMIT_ID']")" \
	"['checkpatch:UNKNOWN_COMMIT_ID']" "checkpatch.pl looks commit ids up in the tree"
is "$(json $J "[f['rule'] for f in d['findings'] if f['rule'] == 'checkpatch:UNKNOWN_COMMIT_ID']")" \
	"[]" "with fixes-tag on: reported once, by fixes-tag"

# the same series as a bare mbox: hunks only
lorebot check --mbox "$TMP/series.mbox" --json --checkers=-codespell,-checkpatch \
	>"$TMP/bare.json" 2>/dev/null
is "$(json "$TMP/bare.json" "[f['rule'] for f in d['findings'] if f['rule'] == 'fixes-tag']")" \
	"[]" "without a tree, well-formed Fixes: tags pass"
is "$(json "$TMP/bare.json" "[f['severity'] for f in d['findings'] if f['rule'] == 'progress-accounting']")" \
	"['warning']" "without a tree, the full charge is still reported from the hunk"

# a series that does not apply is checked from its hunks
lorebot check --mbox "$FIXTURES/lore/003_6100bb5053417aef.mbox" --repo "$R" --json \
	--checkers=-all,lazyfree-droppable,progress-accounting,one-line-args \
	>"$TMP/003.json" 2>"$TMP/003.err"
is "$?" 0 "003 --repo: exit 0"
like "$(cat "$TMP/003.err")" "patch 1: does not apply" "003 --repo: says what did not apply"
is "$(json "$TMP/003.json" "sorted((f['patch'], f['rule'], f['line']) for f in d['findings'])")" \
	"[(2, 'progress-accounting', 2395), (4, 'lazyfree-droppable', 587), (4, 'lazyfree-droppable', 1345)]" \
	"003 --repo: the same findings from the hunks"

# 004 1/4 applies: the whole of try_to_unmap_one() is read, nothing fires
lorebot check --mbox "$FIXTURES/lore/004_476fa21b8430df59.mbox" --repo "$R" --json \
	--checkers=-all,lazyfree-droppable,progress-accounting,one-line-args \
	>"$TMP/004.json" 2>/dev/null
is "$(json "$TMP/004.json" "[p['applied'] for p in d['series'][0]['patches']]")" \
	"[True, False, False, False]" "004 --repo: 1/4 applies, 2/4 does not"
is "$(json "$TMP/004.json" "sorted(set((f['patch'], f['rule']) for f in d['findings']))")" \
	"[(2, 'one-line-args')]" "004 --repo: only the one-line-args findings of 2/4"
done_testing

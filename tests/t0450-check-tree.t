#!/bin/sh
# lorebot check --repo, what the tree adds (issue 21's causes, each with
# a minimal case and its other side):
#  - hunks applied at an offset: findings on the lines apply changed, in
#    post-apply numbers (the mail's numbers would point at untouched code);
#    checkpatch's lines follow;
#  - a caller in the tree that makes a helper a lazyfree helper, found
#    through the call index; the index is cached and read back;
#  - without the tree the hunks cannot tell: a note says so;
#  - checkpatch.pl reads the decoded patch of a quoted-printable mail.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

MM=$(mm_repo) || skip_all "no mm tree (ci/mm-tree.sh)"
R=$TMP/linux.git
git clone -q --bare --shared "$MM" "$R" || skip_all "cannot clone $MM"
BASE=$(git --git-dir="$R" rev-parse mm-new)
export LOREBOT_CACHE=$TMP/cache

# commit_edit PARENT FILE PYTHON SUBJECT: a commit on PARENT that edits
# FILE with PYTHON (s is the text); its id in $C
commit_edit() {
	git --git-dir="$R" show "$1:$2" >"$TMP/file"
	edit_file "$TMP/file" "$3" || return 1
	blob=$(git --git-dir="$R" hash-object -w "$TMP/file")
	# the new tree: only mm/ and the root are written again (no index
	# of the whole kernel)
	dir=${2%/*}
	sub=$(git --git-dir="$R" ls-tree "$1:$dir" |
		awk -v f="${2##*/}" -v b="$blob" -F'\t' \
			'$2 == f { sub(/ [0-9a-f]+$/, " " b, $1) } { print $1 "\t" $2 }' |
		git --git-dir="$R" mktree)
	tree=$(git --git-dir="$R" ls-tree "$1" |
		awk -v d="$dir" -v t="$sub" -F'\t' \
			'$2 == d { sub(/ [0-9a-f]+$/, " " t, $1) } { print $1 "\t" $2 }' |
		git --git-dir="$R" mktree)
	C=$(printf '%s\n\nA test.\n\nSigned-off-by: lorebot test <test@lorebot.invalid>\n' "$4" |
		git --git-dir="$R" commit-tree "$tree" -p "$1")
}

# --- offsets: the author's tree has 12 more lines above the change ---
SKIP='''		if (!folio_test_anon(folio)) {
			result = SCAN_PAGE_ANON;'''
commit_edit "$BASE" mm/khugepaged.c \
	"s.replace('#include <linux/mm.h>\n', '#include <linux/mm.h>\n' + '/* padding */\n' * 12, 1)" \
	"mm: padding" || skip_all "cannot edit mm/khugepaged.c"
AUTHOR=$C
commit_edit "$AUTHOR" mm/khugepaged.c \
	"s.replace('''$SKIP''', '''		if (cc->is_khugepaged && !pte_dirty(pteval) && 
		    folio_test_lazyfree(folio)) {
			result = SCAN_FAIL;
			goto out_unmap;
		}

$SKIP''', 1)" "mm: khugepaged: skip lazy-free folios" || skip_all "cannot edit"
git --git-dir="$R" format-patch -q --stdout "$AUTHOR..$C" >"$TMP/offset.mbox"
mail_line=$(sed -n 's/^@@ -[0-9,]* +\([0-9]*\),.*/\1/p' "$TMP/offset.mbox" | head -1)
want=$(git --git-dir="$R" show "$BASE:mm/khugepaged.c" | grep -n '^		if (!folio_test_anon(folio)) {$' | head -1 | cut -d: -f1)
lorebot check --mbox "$TMP/offset.mbox" --repo "$R" --json \
	--checkers=-all,lazyfree-droppable,checkpatch \
	>"$TMP/offset.json" 2>"$TMP/offset.err"
is "$(json "$TMP/offset.json" "d['series'][0]['patches'][0]['applied']")" True \
	"offset: the patch applies to mm-new, 12 lines up"
lf="[f for f in d['findings'] if f['rule'] == 'lazyfree-droppable']"
is "$(json "$TMP/offset.json" "[f['line'] for f in $lf]")" "[$want]" \
	"offset: the finding is on the line apply changed (post-apply numbering)"
like "$(json "$TMP/offset.json" "$lf[0]['quote']")" 'cc->is_khugepaged && !pte_dirty' \
	"offset: it quotes the new condition"
ok "offset: the mail's own numbers were elsewhere" test "$((mail_line + 3))" -ne "$want"
is "$(json "$TMP/offset.json" "[f['line'] for f in d['findings'] if f['rule'] == 'checkpatch:TRAILING_WHITESPACE']")" \
	"[$want]" "offset: checkpatch's line moves with the hunk"
# the other side: the same patch on its own base, no offset, the mail's lines
printf 'base-commit: %s\n' "$AUTHOR" >>"$TMP/offset.mbox"
lorebot check --mbox "$TMP/offset.mbox" --repo "$R" --json --checkers=-all,lazyfree-droppable \
	>"$TMP/exact.json" 2>/dev/null
is "$(json "$TMP/exact.json" "[f['line'] for f in d['findings']]")" "[$((mail_line + 3))]" \
	"no offset: on its own base the finding keeps the mail's numbers"

# --- a caller in the tree: __discard_anon_folio_pmd_locked() ---
commit_edit "$BASE" mm/huge_memory.c \
	"s.replace('''	if (folio_test_dirty(folio) || pmd_dirty(orig_pmd))
		return false;

	orig_pmd = pmdp_huge_clear_flush''', '''	if (pmd_dirty(orig_pmd) || folio_test_dirty(folio))
		return false;

	orig_pmd = pmdp_huge_clear_flush''', 1)" "mm: huge_memory: test the PMD first" ||
	skip_all "cannot edit mm/huge_memory.c"
git --git-dir="$R" format-patch -q --stdout --base="$BASE" "$BASE..$C" >"$TMP/caller.mbox"
line=$(git --git-dir="$R" show "$C:mm/huge_memory.c" | grep -n '^	if (pmd_dirty(orig_pmd) || folio_test_dirty(folio))$' | cut -d: -f1)
lorebot check --mbox "$TMP/caller.mbox" --repo "$R" --json --checkers=-all,lazyfree-droppable \
	>"$TMP/caller.json" 2>"$TMP/caller.err"
is "$(json "$TMP/caller.json" "[(f['file'], f['line'], f['severity']) for f in d['findings']]")" \
	"[('mm/huge_memory.c', $line, 'warning')]" \
	"tree caller: unmap_huge_pmd_locked() tests anon && !swapbacked, so the helper's test is a lazyfree decision"
like "$(json "$TMP/caller.json" "d['findings'][0]['message']")" \
	"unmap_huge_pmd_locked\(\) in mm/huge_memory.c" "tree caller: the message names the caller"
like "$(json "$TMP/caller.json" "d['findings'][0]['suggestion']")" \
	'\(pmd_dirty\(orig_pmd\) \|\| folio_test_dirty\(folio\)\) &&' \
	"tree caller: keep-when-dirty: the dirty bits grouped with the exemption"

# a caller in another file, seen only through the call index: the tree
# gets a helper in mm/huge_memory.c and its lazyfree caller in mm/rmap.c,
# the series touches the helper only
commit_edit "$BASE" mm/huge_memory.c \
	"s.replace('''static void remap_page(struct folio *folio, unsigned long nr, int flags)
{''', '''bool pmd_folio_discard(struct vm_area_struct *vma, pmd_t *pmdp,
		       struct folio *folio)
{
	if (pmd_young(*pmdp))
		return false;
	folio_put(folio);
	return true;
}

static void remap_page(struct folio *folio, unsigned long nr, int flags)
{''', 1)" "mm: huge_memory: pmd_folio_discard()" || skip_all "cannot edit"
commit_edit "$C" mm/rmap.c \
	"s.replace('''static bool try_to_unmap_one(''', '''bool try_discard_lazyfree_pmd(struct vm_area_struct *vma, pmd_t *pmdp,
			       struct folio *folio)
{
	if (!folio_test_anon(folio) || folio_test_swapbacked(folio))
		return false;
	return pmd_folio_discard(vma, pmdp, folio);
}

static bool try_to_unmap_one(''', 1)" "mm: rmap: try_discard_lazyfree_pmd()" ||
	skip_all "cannot edit"
TREE=$C
commit_edit "$TREE" mm/huge_memory.c \
	"s.replace('''	if (pmd_young(*pmdp))
		return false;
	folio_put(folio);''', '''	if (pmd_young(*pmdp))
		return false;
	if (folio_test_dirty(folio))
		return false;
	folio_put(folio);''', 1)" "mm: huge_memory: keep dirty folios" || skip_all "cannot edit"
git --git-dir="$R" format-patch -q --stdout --base="$TREE" "$TREE..$C" >"$TMP/other.mbox"
lorebot check --mbox "$TMP/other.mbox" --repo "$R" --json --checkers=-all,lazyfree-droppable \
	>"$TMP/other.json" 2>/dev/null
like "$(json "$TMP/other.json" "[f['message'] for f in d['findings']]")" \
	'try_discard_lazyfree_pmd\(\) in mm/rmap\.c' \
	"tree caller in another file: found through the call index"
ok "the call index is cached" ls "$TMP"/cache/callindex/*.idx
# the cache is what is read: an emptied index knows no caller
idx=$(ls -t "$TMP"/cache/callindex/*.idx | head -1)
cp "$idx" "$TMP/idx.saved"
: >"$idx"
lorebot check --mbox "$TMP/other.mbox" --repo "$R" --json --checkers=-all,lazyfree-droppable \
	>"$TMP/nocache.json" 2>/dev/null
is "$(json "$TMP/nocache.json" "d['findings']")" "[]" \
	"the cached index is used: emptied, it knows no caller, no finding"
mv "$TMP/idx.saved" "$idx"

# hunks only: the same patch says the hunks cannot tell
lorebot check --mbox "$TMP/caller.mbox" --json --checkers=-all,lazyfree-droppable \
	>"$TMP/hunks.json" 2>/dev/null
is "$(json "$TMP/hunks.json" "[(f['line'], f['severity']) for f in d['findings']]")" \
	"[($line, 'note')]" "hunks only: a note, not silence"
like "$(json "$TMP/hunks.json" "d['findings'][0]['message']")" "check with --repo" \
	"hunks only: the note says what would tell"

# the other side: a helper whose tree callers do not all pass lazyfree folios
commit_edit "$BASE" mm/huge_memory.c \
	"s.replace('''static void remap_page(struct folio *folio, unsigned long nr, int flags)
{''', '''static bool pmd_is_clean(struct folio *folio, pmd_t pmd)
{
	if (folio_test_dirty(folio) || pmd_dirty(pmd))
		return false;
	return true;
}

static void remap_page(struct folio *folio, unsigned long nr, int flags)
{''', 1).replace('''	if (folio_test_anon(folio) && !folio_test_swapbacked(folio))
		return __discard_anon_folio_pmd_locked(vma, addr, pmdp, folio);''', '''	if (folio_test_anon(folio) && !folio_test_swapbacked(folio) &&
	    pmd_is_clean(folio, *pmdp))
		return __discard_anon_folio_pmd_locked(vma, addr, pmdp, folio);
	if (!pmd_is_clean(folio, *pmdp))
		return false;''', 1)" "mm: huge_memory: a helper for clean PMDs" ||
	skip_all "cannot edit mm/huge_memory.c"
git --git-dir="$R" format-patch -q --stdout --base="$BASE" "$BASE..$C" >"$TMP/mixed.mbox"
lorebot check --mbox "$TMP/mixed.mbox" --repo "$R" --json --checkers=-all,lazyfree-droppable \
	>"$TMP/mixed.json" 2>/dev/null
is "$(json "$TMP/mixed.json" "[f['line'] for f in d['findings']]")" "[]" \
	"tree caller, other side: one call passes any folio, the helper is not a lazyfree helper"

# --- checkpatch.pl on a quoted-printable mail reads the decoded patch ---
python3 - "$TMP/caller.mbox" "$TMP/qp.mbox" <<'PY'
import quopri, sys
raw = open(sys.argv[1], "rb").read()
head, body = raw.split(b"\n\n", 1)
head += b"\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: quoted-printable"
open(sys.argv[2], "wb").write(head + b"\n\n" + quopri.encodestring(body))
PY
ok "the quoted-printable mail has =3D in it" grep -q '=3D' "$TMP/qp.mbox"
lorebot check --mbox "$TMP/caller.mbox" --repo "$R" --json --checkers=-all,checkpatch \
	>"$TMP/cp8.json" 2>/dev/null
lorebot check --mbox "$TMP/qp.mbox" --repo "$R" --json --checkers=-all,checkpatch \
	>"$TMP/cpqp.json" 2>/dev/null
q="sorted((f['rule'], f['file'], f['line']) for f in d['findings'])"
is "$(json "$TMP/cpqp.json" "$q")" "$(json "$TMP/cp8.json" "$q")" \
	"checkpatch: the quoted-printable mail gets the findings of the 8-bit one"
is "$(json "$TMP/cpqp.json" "[f['rule'] for f in d['findings'] if f['rule'] in ('checkpatch:SPACING', 'checkpatch:CORRUPTED_PATCH')]")" \
	"[]" "checkpatch: no =3D spacing errors, no corrupt patch"
done_testing

#!/bin/sh
# lorebot check --fix prints the packed prototypes of one-line-args as a
# patch; --apply commits them as fixup! commits on the developer's branch
# (the only write lorebot check ever does), touching only the files
# concerned, and refuses when those files have changes of the developer's.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-devcheck.sh"

L=$TMP/linux
dev_clone "$L" mm arch/arm64 arch/riscv arch/x86 || skip_all "cannot clone $MM"
git config --global user.name "lorebot test"
git config --global user.email test@lorebot.invalid
dev_branch "$L" tlbbatch
dev_am "$L" "$DEVFIX/004-2-port-6.12.patch"
PORT=$(git -C "$L" rev-parse HEAD)
ONE="--checkers=-all,one-line-args"
cd "$L" || exit 1

# --fix: a patch, nothing written
touch "$TMP/marker"
sleep 1
before=$(dev_state "$L")
lorebot check --fix $ONE >"$TMP/fix.txt" 2>"$TMP/err"
is "$?" 0 "--fix: exit 0"
is "$(dev_state "$L")" "$before" "--fix alone writes nothing"
sed -n '/^# \[PATCH\]/,$p' "$TMP/fix.txt" >"$TMP/fix.patch"
like "$(head -2 "$TMP/fix.patch")" "^# one-line-args: 6 prototypes packed$" "--fix: says what it packs, per patch"
ok "--fix: the patch applies to the branch" git apply --check "$TMP/fix.patch"
is "$(grep '^diff --git' "$TMP/fix.patch" | sort)" \
"diff --git a/arch/arm64/include/asm/tlbflush.h b/arch/arm64/include/asm/tlbflush.h
diff --git a/arch/riscv/include/asm/tlbflush.h b/arch/riscv/include/asm/tlbflush.h
diff --git a/arch/riscv/mm/tlbflush.c b/arch/riscv/mm/tlbflush.c
diff --git a/arch/x86/include/asm/tlbflush.h b/arch/x86/include/asm/tlbflush.h
diff --git a/mm/rmap.c b/mm/rmap.c" "--fix: the five files of the six prototypes"
like "$(cat "$TMP/fix.patch")" "^\+		struct mm_struct \*mm, unsigned long start, unsigned long end\);$" \
	"--fix: the packed form"
lorebot check --fix --json $ONE >"$TMP/fix.json" 2>/dev/null
is "$(json "$TMP/fix.json" "d['fix'] == open('$TMP/fix.patch').read()")" True "--json: the same patch in 'fix'"

# --apply refuses when a file concerned has changes, staged or not
echo "/* mine */" >>mm/rmap.c
before=$(dev_state "$L")
lorebot check --apply $ONE >/dev/null 2>"$TMP/err"
is "$?" 2 "--apply with changes to mm/rmap.c: exit 2"
like "$(cat "$TMP/err")" "has changes to mm/rmap.c; commit or stash them first" "--apply: names the file"
is "$(dev_state "$L")" "$before" "--apply refused: nothing written"
git add mm/rmap.c
lorebot check --apply $ONE >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "has changes to mm/rmap.c" "--apply: staged changes count too"
git reset -q mm/rmap.c
git checkout -q mm/rmap.c

# --apply with unrelated work in progress: one fixup! commit
echo "/* wip */" >>mm/vmscan.c
echo "/* staged */" >>mm/memory.c
git add mm/memory.c
lorebot check --apply $ONE >"$TMP/apply.txt" 2>"$TMP/err"
is "$?" 0 "--apply: exit 0"
is "$(git rev-parse HEAD~1)" "$PORT" "--apply: one commit on top of the branch"
is "$(git log -1 --format=%s)" "fixup! mm: Support tlbbatch flush for a range of PTEs" \
	"--apply: a fixup! commit for the patch"
is "$(git symbolic-ref HEAD)" refs/heads/tlbbatch "--apply: on the branch"
is "$(git log -1 --format='%an <%ae>')" "lorebot test <test@lorebot.invalid>" "--apply: as the user"
is "$(git diff --name-only HEAD~1 HEAD | tr '\n' ' ')" \
	"arch/arm64/include/asm/tlbflush.h arch/riscv/include/asm/tlbflush.h arch/riscv/mm/tlbflush.c arch/x86/include/asm/tlbflush.h mm/rmap.c " \
	"--apply: only the files concerned"
# (index lines abbreviate blob ids to a length git picks from the size of
# the object database: compare the changes, not the abbreviations)
is "$(git diff HEAD~1 HEAD | grep -v '^index ')" \
	"$(sed -n '/^diff --git/,$p' "$TMP/fix.patch" | grep -v '^#' | grep -v '^index ')" \
	"--apply: the change is the --fix patch"
is "$(git status --porcelain=v1)" "M  mm/memory.c
 M mm/vmscan.c" "--apply: the work tree and index follow; the developer's changes stay, staged or not"
like "$(cat "$TMP/err")" "git rebase -i --autosquash [0-9a-f]{12}" "--apply: says how to fold it in"

# the fixup folds into its patch and the check is clean
git stash -q
GIT_SEQUENCE_EDITOR=: git rebase -q -i --autosquash origin/mm-new
git stash pop -q
is "$(git rev-list --count origin/mm-new..HEAD)" 1 "autosquash: one patch again"
lorebot check $ONE >"$TMP/after.txt" 2>&1
like "$(cat "$TMP/after.txt")" "^0 errors, 0 warnings, 0 notes$" "after the fixup: nothing to pack"

# two patches with findings: one fixup! each, a later change is left alone
git reset -q --hard "$PORT"
dev_commit "$L" "mm: khugepaged: two helpers" mm/khugepaged.c \
"s.replace('''static int hpage_collapse_scan_file(''', '''static int __maybe_unused lorebot_one(struct mm_struct *mm,
				       unsigned long address,
				       int referenced)
{
	return 0;
}

static int __maybe_unused lorebot_two(struct mm_struct *mm,
				       unsigned long address,
				       int referenced)
{
	return 0;
}

static int hpage_collapse_scan_file(''', 1)"
dev_commit "$L" "mm: khugepaged: the first helper takes a long referenced" mm/khugepaged.c \
"s.replace('''				       unsigned long address,
				       int referenced)
{
	return 0;
}

static int __maybe_unused lorebot_two''', '''				       unsigned long address,
				       long referenced)
{
	return 0;
}

static int __maybe_unused lorebot_two''', 1)"
lorebot check --apply $ONE >"$TMP/two.txt" 2>"$TMP/err"
is "$?" 0 "--apply over three patches: exit 0"
is "$(git log -3 --format=%s)" \
"fixup! mm: khugepaged: the first helper takes a long referenced
fixup! mm: khugepaged: two helpers
fixup! mm: Support tlbbatch flush for a range of PTEs" "one fixup! per patch with findings, in order"
like "$(cat "$TMP/err")" "mm/khugepaged.c:[0-9]+: a later patch changed the prototype; not packed" \
	"the prototype a later patch changed is left alone, and said so"
is "$(git show HEAD~1 | grep '^+	')" "+				       unsigned long address, int referenced)" \
	"patch 2's fixup packs lorebot_two() only"
is "$(git show HEAD | grep '^+	')" "+				       unsigned long address, long referenced)" \
	"patch 3's fixup packs the prototype it changed"
is "$(git status --porcelain=v1 --untracked-files=no)" "" "the tree follows the fixups"

# --apply refuses a range that does not end at the branch's tip, or no branch
lorebot check --apply $ONE origin/mm-new..HEAD~2 >/dev/null 2>"$TMP/err"
is "$?" 2 "--apply on a range before the tip: exit 2"
like "$(cat "$TMP/err")" "does not end at the tip of the current branch" "--apply: only at the tip"
git checkout -q --detach "$PORT"
lorebot check --apply $ONE origin/mm-new..HEAD >/dev/null 2>"$TMP/err"
is "$?" 2 "--apply on a detached HEAD: exit 2"
like "$(cat "$TMP/err")" "HEAD is detached; --apply adds its fixups on top of a branch" \
	"--apply on a detached HEAD: says so"
done_testing

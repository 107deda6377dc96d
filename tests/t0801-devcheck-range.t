#!/bin/sh
# lorebot check in a developer's tree: which commits it checks (the
# branch's upstream range, A..B, one commit), what it refuses (no
# repository, no upstream, detached HEAD, merges, nothing to check), the
# mails it makes of the commits (numbering, empty commits, authors,
# renames) and the exit statuses.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-devcheck.sh"

L=$TMP/linux
dev_clone "$L" mm Documentation/mm || skip_all "cannot clone $MM"
BASE=$(git -C "$L" rev-parse mm-new)
CK="--checkers=-checkpatch,-codespell"

# refusals: exit 2 and what to do
(cd "$TMP" && lorebot check) >/dev/null 2>"$TMP/err"
is "$?" 2 "outside a repository: exit 2"
like "$(cat "$TMP/err")" "is not in a git repository" "outside a repository: says so"

git -C "$L" checkout -q -b nobase mm-new
(cd "$L" && lorebot check) >/dev/null 2>"$TMP/err"
is "$?" 2 "a branch without upstream: exit 2"
like "$(cat "$TMP/err")" "branch 'nobase' has no upstream: name a range \('lorebot check origin/mm-new\.\.'\) or set one \('git branch --set-upstream-to=origin/mm-new'\)" \
	"a branch without upstream: says how to name a range or set one, with the clone's own branch"

git -C "$L" checkout -q --detach mm-new
(cd "$L" && lorebot check) >/dev/null 2>"$TMP/err"
is "$?" 2 "detached HEAD: exit 2"
like "$(cat "$TMP/err")" "HEAD is detached: name a range \('lorebot check origin/mm-new\.\.HEAD'\)" \
	"detached HEAD: says so, naming origin/mm-new (the clone has no origin/master)"

dev_branch "$L" work
(cd "$L" && lorebot check) >/dev/null 2>"$TMP/err"
is "$?" 2 "a branch at its upstream: exit 2"
like "$(cat "$TMP/err")" "no commits in origin/mm-new\.\.work: nothing to check" \
	"a branch at its upstream: nothing to check"

# three commits, one of them empty; the first has no Signed-off-by
python3 - "$L/mm/page_io.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("#include <linux/mm.h>\n", "#include <linux/mm.h>\n/* swap I/O */\n", 1)
open(p, "w").write(s)
PY
git -C "$L" commit -q -m "mm/page_io: say what the file is about" -- mm/page_io.c
git -C "$L" commit -q --allow-empty -s -m "wip: nothing yet"
dev_commit "$L" "mm: khugepaged: a helper with split parameters" mm/khugepaged.c \
"s.replace('''static int hpage_collapse_scan_file(''', '''static int __maybe_unused lorebot_helper(struct mm_struct *mm,
					 unsigned long address,
					 int referenced)
{
	return 0;
}

static int hpage_collapse_scan_file(''', 1)" || skip_all "cannot edit mm/khugepaged.c"
TIP=$(git -C "$L" rev-parse HEAD)

(cd "$L/mm" && lorebot check --json $CK) >"$TMP/all.json" 2>"$TMP/err"
is "$?" 1 "from a subdirectory: the branch is checked; an error finding: exit 1"
J=$TMP/all.json
is "$(json $J "[p['subject'] for p in d['series'][0]['patches']]")" \
	"['[PATCH 1/2] mm/page_io: say what the file is about', '[PATCH 2/2] mm: khugepaged: a helper with split parameters']" \
	"two patches numbered 1/2 and 2/2: the empty commit is left out"
is "$(json $J "[f['patch'] for f in d['findings'] if f['rule'] == 'signed-off-by' and f['severity'] == 'error']")" \
	"[1]" "patch 1 has no Signed-off-by: an error"
is "$(json $J "[(f['patch'], f['file'], f['line']) for f in d['findings'] if f['rule'] == 'one-line-args']")" \
	"[(2, 'mm/khugepaged.c', $(git -C "$L" show HEAD:mm/khugepaged.c | grep -n '^static int __maybe_unused lorebot_helper' | cut -d: -f1))]" \
	"patch 2: one-line-args at the post-image line of the commit"
is "$(json $J "(d['range']['base'], d['range']['tip'], len(d['range']['commits']))")" \
	"('$BASE', '$TIP', 3)" "the range: base, tip and its three commits"
is "$(json $J "[f['rule'] for f in d['findings'] if f['rule'] == 'numbering']")" "[]" \
	"numbering is consistent"

# ranges on the command line
(cd "$L" && lorebot check --json $CK HEAD~1..HEAD) >"$TMP/r1.json" 2>/dev/null
is "$?" 0 "A..B: exit 0 (the last commit is signed off)"
is "$(json "$TMP/r1.json" "[p['subject'] for p in d['series'][0]['patches']]")" \
	"['[PATCH] mm: khugepaged: a helper with split parameters']" "A..B: one patch"
(cd "$L" && lorebot check --json $CK HEAD~2) >"$TMP/r2.json" 2>/dev/null
is "$(json "$TMP/r2.json" "(d['range']['kind'], d['range']['commits'], d['range']['base'])")" \
	"('range', ['$(git -C "$L" rev-parse HEAD~2)'], '$BASE')" "one commit: that commit, on its parent"
(cd "$TMP" && lorebot check --repo "$L" --json $CK origin/mm-new..) >"$TMP/r3.json" 2>/dev/null
is "$(json "$TMP/r3.json" "len(d['series'][0]['patches'])")" 2 "--repo DIR with 'A..': up to HEAD"
(cd "$L" && lorebot check nosuch..HEAD) >/dev/null 2>"$TMP/err"
is "$?" 2 "an unknown revision: exit 2"
like "$(cat "$TMP/err")" "'nosuch' is not a commit" "an unknown revision: named"
(cd "$L" && lorebot check mm-new...HEAD) >/dev/null 2>"$TMP/err"
is "$?" 2 "A...B: exit 2"
like "$(cat "$TMP/err")" "not a line of patches; use A\.\.B" "A...B: refused"
(cd "$L" && lorebot check a..b c..d) >/dev/null 2>&1
is "$?" 2 "two ranges: a usage error"

# a merge in the range is refused
git -C "$L" checkout -q -b side mm-new
dev_commit "$L" "mm: a side change" mm/vmscan.c "s.replace('#include <linux/mm.h>\n', '#include <linux/mm.h>\n\n', 1)"
git -C "$L" checkout -q work
git -C "$L" merge -q --no-edit side
(cd "$L" && lorebot check) >/dev/null 2>"$TMP/err"
is "$?" 2 "a merge in the range: exit 2"
like "$(cat "$TMP/err")" "is a merge; lorebot check takes a line of patches" "a merge: refused"
git -C "$L" reset -q --hard "$TIP"

# authors: a non-ASCII name, its sign-off matches; a rename; Fixes: looked up
git -C "$L" checkout -q -b auth "$TIP"
git -C "$L" branch -q -u origin/mm-new
git -C "$L" mv Documentation/mm/hmm.rst Documentation/mm/hmm-notes.rst
GIT_AUTHOR_NAME="Jörg Rödel" GIT_AUTHOR_EMAIL="joro@example.org" git -C "$L" commit -q \
	-m "Documentation/mm: rename the HMM page" \
	-m "Fixes: ${BASE%"${BASE#????????????}"} (\"not its subject\")
Signed-off-by: Jörg Rödel <joro@example.org>"
(cd "$L" && lorebot check --json $CK HEAD~1..) >"$TMP/a.json" 2>"$TMP/err"
is "$?" 0 "a non-ASCII author who signed off: exit 0"
is "$(json "$TMP/a.json" "[f['rule'] for f in d['findings'] if f['rule'] == 'signed-off-by']")" "[]" \
	"the sign-off of a non-ASCII author matches"
like "$(json "$TMP/a.json" "[f['message'] for f in d['findings'] if f['rule'] == 'fixes-tag'][0]")" \
	"Fixes: commit ${BASE%"${BASE#????????????}"} is \"Linux 6\.12 .*\", not \"not its subject\"" \
	"Fixes: is looked up in the developer's repository"
is "$(json "$TMP/a.json" "[p['subject'] for p in d['series'][0]['patches']]")" \
	"['[PATCH] Documentation/mm: rename the HMM page']" "a rename is a patch like any other"
done_testing

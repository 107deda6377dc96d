#!/bin/sh
# The checkpatch adapter: scripts/checkpatch.pl of the (cached) tree, run
# in parallel groups, must report what checkpatch.pl reports on each patch
# run one after another, as "checkpatch:<TYPE>" findings.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

MM=$(mm_repo) || skip_all "no mm tree (ci/mm-tree.sh)"
CACHE=$(dirname "$MM")
export LOREBOT_CACHE=$CACHE
L=$FIXTURES/lore/000_73a05b4700ab1a7a.mbox

mkdir -p "$TMP/scripts" "$TMP/split"
for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
	git --git-dir="$MM" show "mm-new:scripts/$f" >"$TMP/scripts/$f"
done
git mailsplit --mboxrd -o"$TMP/split" "$L" >/dev/null

# checkpatch.pl on each patch, one after another, with the flags b4 uses:
# --showfile for the file and line of code findings; for the commit
# message, checkpatch's "#N" (its line in the mail) counted from the
# subject (1), the message starting at 3 (--showfile's line is stale there)
for f in "$TMP"/split/*; do
	n=$(sed -n 's/^Subject: \[PATCH \([0-9]*\)\/9\].*/\1/p' "$f")
	[ -n "$n" ] && [ "$n" != 0 ] || continue
	for show in --showfile ""; do
		GIT_DIR=/nonexistent perl "$TMP/scripts/checkpatch.pl" -q --terse --no-summary \
			--mailback $show --show-types --no-tree "$f" >"$TMP/cp$show.out"
	done
	$PY - "$n" "$f" "$TMP/cp--showfile.out" "$TMP/cp.out" <<'EOF'
import re, sys
n, mail, shown, plain = sys.argv[1:]
rx = re.compile(r"^(.*?):(\d+): [A-Z]+:([A-Z_0-9]+): ")
mail = open(mail, encoding="utf-8", errors="replace").read().split("\n")
subject = next(i for i, l in enumerate(mail, 1) if l.startswith("Subject:"))
body = mail.index("") + 2
for a, b in zip(open(shown), open(plain)):
    fa, fb = rx.match(a), rx.match(b)
    if not fa:
        continue
    if fa.group(1):
        print(n, fa.group(1), fa.group(2), fa.group(3))
        continue
    no = int(fb.group(2))
    line = 1 if no == subject else no - body + 3 if no >= body else 0
    print(n, "", line, fa.group(3))
EOF
done | sort >"$TMP/want"
ok "checkpatch.pl finds something in 000" test -s "$TMP/want"

lorebot check --mbox "$L" --json --checkers=-all,checkpatch >"$TMP/out.json" 2>"$TMP/err"
is "$?" 0 "exit 0: warnings only"
json "$TMP/out.json" "'\n'.join('%d %s %d %s' % (f['patch'], f['file'] or '', f['line'] or 0, f['rule'][11:]) for f in d['findings'])" |
	sort >"$TMP/got"
is "$(cat "$TMP/got")" "$(cat "$TMP/want")" \
	"the same findings as checkpatch.pl run patch by patch"
like "$(json "$TMP/out.json" "sorted(set(f['rule'] for f in d['findings']))")" \
	"checkpatch:BLOCK_COMMENT_STYLE" "rules are checkpatch:<TYPE>"
is "$(json "$TMP/out.json" "[(f['file'], f['line']) for f in d['findings'] if f['rule'] == 'checkpatch:COMMIT_LOG_LONG_LINE'][:1]")" \
	"[(None, 11)]" "commit message findings: no file, the line in the message"
is "$(json "$TMP/out.json" "[(f['file'], f['line']) for f in d['findings'] if f['rule'] == 'checkpatch:BLOCK_COMMENT_STYLE']")" \
	"[('mm/vmscan.c', 4121)]" "code findings carry the post-image line"

# an explicit error type becomes an error: trailing whitespace in a patch
sed 's/^+\(.*walk->mm_stats\[MM_WALK_TOTAL\]++;\)$/+\1  /' "$L" >"$TMP/ws.mbox"
if ! cmp -s "$L" "$TMP/ws.mbox"; then
	lorebot check --mbox "$TMP/ws.mbox" --json --checkers=-all,checkpatch >"$TMP/ws.json"
	is "$?" 1 "a checkpatch ERROR: exit 1"
	is "$(json "$TMP/ws.json" "sorted(set(f['severity'] for f in d['findings'] if f['rule'] == 'checkpatch:TRAILING_WHITESPACE'))")" \
		"['error']" "TRAILING_WHITESPACE is an error"
else
	ok "# SKIP no line to add trailing blanks to" true
	ok "# SKIP no line to add trailing blanks to" true
fi

# no tree and no cached repository: a note, not a failure
mkdir -p "$TMP/emptycache"
LOREBOT_CACHE=$TMP/emptycache lorebot check --mbox "$L" --json --checkers=-all,checkpatch \
	>"$TMP/none.json" 2>&1
is "$?" 0 "no checkpatch.pl: exit 0"
like "$(json "$TMP/none.json" "[f['message'] for f in d['findings']]")" "checkpatch.pl not run" \
	"no checkpatch.pl: a note says so"
# one problem, one finding: checkpatch's sign-off, typo and commit id
# findings beside the lorebot checker that says the same
cat >"$TMP/merge.mbox" <<'MAIL'
From mboxrd@z Thu Jan  1 00:00:00 1970
From: Ann Author <ann@example.org>
To: linux-mm@kvack.org
Subject: [PATCH] mm: count what occured
Date: Mon, 2 Feb 2026 10:00:00 +0000
Message-ID: <merge-1@example.org>

The count was lost when it occured twice.

Fixes: 0123456789ab ("mm: a commit that never was")
---
diff --git a/mm/filemerge.c b/mm/filemerge.c
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/mm/filemerge.c
@@ -0,0 +1,2 @@
+int filemerge_a;
+int filemerge_b;

MAIL
rules() {
	json "$1" "' '.join(sorted(f['rule'] for f in d['findings'] if f['rule'] in ('$2', '${3:-}')))"
}
lorebot check --mbox "$TMP/merge.mbox" --json --checkers=-all,checkpatch >"$TMP/cp.json"
lorebot check --mbox "$TMP/merge.mbox" --json --repo "$MM" >"$TMP/merged.json"
is "$(rules "$TMP/cp.json" checkpatch:MISSING_SIGN_OFF)" checkpatch:MISSING_SIGN_OFF \
	"alone, checkpatch reports the missing sign-off (on a code line)"
is "$(rules "$TMP/merged.json" checkpatch:MISSING_SIGN_OFF signed-off-by)" signed-off-by \
	"beside signed-off-by: once, as signed-off-by"
is "$(json "$TMP/cp.json" "[f['line'] for f in d['findings'] if f['rule'] == 'checkpatch:TYPO_SPELLING']")" \
	"[1, 3]" "checkpatch: the typo in the subject (COMMIT_MSG:1) and the message (:3)"
is "$(json "$TMP/cp.json" "[f['line'] for f in d['findings'] if f['rule'] == 'checkpatch:UNKNOWN_COMMIT_ID']")" \
	"[5]" "checkpatch: the unknown id on its Fixes: line (COMMIT_MSG:5)"
is "$(json "$TMP/merged.json" "[(f['rule'], f['line']) for f in d['findings'] if f['rule'] in ('checkpatch:TYPO_SPELLING', 'codespell')]")" \
	"[('checkpatch:TYPO_SPELLING', 1), ('codespell', 3)]" \
	"beside codespell: the message's typo once, with codespell's quote; the subject's (codespell reads no subject) stays"
is "$(rules "$TMP/cp.json" checkpatch:UNKNOWN_COMMIT_ID)" checkpatch:UNKNOWN_COMMIT_ID \
	"checkpatch: the unknown commit id"
is "$(rules "$TMP/merged.json" checkpatch:UNKNOWN_COMMIT_ID fixes-tag)" fixes-tag \
	"beside fixes-tag on the same id: once"
is "$(json "$TMP/merged.json" "[f['severity'] for f in d['findings'] if f['rule'] == 'signed-off-by']")" \
	"['error']" "the worse severity of the two stays"
lorebot check --mbox "$TMP/merge.mbox" >"$TMP/merged.txt"
is "$(grep -c "COMMIT_MSG:3: .*'occured' may be" "$TMP/merged.txt")" 1 "lorebot check's text: the message's typo once"

# a tree that was not fetched lately: an id it lacks is the bot's gap
lorebot check --mbox "$TMP/merge.mbox" --json --repo "$MM" \
	--stale-tree "git.fetch is off" >"$TMP/stale.json"
is "$(json "$TMP/stale.json" "[f['rule'] for f in d['findings'] if 'not in' in f['message'] or f['rule'] == 'checkpatch:UNKNOWN_COMMIT_ID']")" \
	"[]" "--stale-tree: the id the tree lacks is not reported"
is "$(json "$TMP/stale.json" "[(f['rule'], f['severity'], f['message']) for f in d['findings'] if 'not reported' in f['message']]")" \
	"[('fixes-tag', 'note', 'commit ids the tree lacks are not reported: git.fetch is off')]" \
	"one note says so and why"
is "$(json "$TMP/stale.json" "[f['rule'] for f in d['findings'] if f['rule'] == 'codespell']")" \
	"['codespell']" "the other findings stay"
done_testing

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

# checkpatch.pl on each patch, one after another, with the flags b4 uses
# (commit message findings: no file, and their line is checkpatch's stale one)
for f in "$TMP"/split/*; do
	n=$(sed -n 's/^Subject: \[PATCH \([0-9]*\)\/9\].*/\1/p' "$f")
	[ -n "$n" ] && [ "$n" != 0 ] || continue
	GIT_DIR=/nonexistent perl "$TMP/scripts/checkpatch.pl" -q --terse --no-summary \
		--mailback --showfile --show-types --no-tree "$f" |
		sed -n "s/^\([^:]*\):\([0-9]*\): [A-Z]*:\([A-Z_0-9]*\): .*/$n \1 \2 \3/p"
done | sed 's/^\([0-9]*\)  [0-9]* /\1  0 /' | sort >"$TMP/want"
ok "checkpatch.pl finds something in 000" test -s "$TMP/want"

lorebot check --mbox "$L" --json --checkers=-all,checkpatch >"$TMP/out.json" 2>"$TMP/err"
is "$?" 0 "exit 0: warnings only"
json "$TMP/out.json" "'\n'.join('%d %s %d %s' % (f['patch'], f['file'] or '', f['line'] or 0, f['rule'][11:]) for f in d['findings'])" |
	sort >"$TMP/got"
is "$(cat "$TMP/got")" "$(cat "$TMP/want")" \
	"the same findings as checkpatch.pl run patch by patch"
like "$(json "$TMP/out.json" "sorted(set(f['rule'] for f in d['findings']))")" \
	"checkpatch:BLOCK_COMMENT_STYLE" "rules are checkpatch:<TYPE>"
is "$(json "$TMP/out.json" "[f['file'] for f in d['findings'] if f['rule'] == 'checkpatch:COMMIT_LOG_LONG_LINE'][:1]")" \
	"[None]" "commit message findings have no file"
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
is "$(rules "$TMP/cp.json" checkpatch:TYPO_SPELLING)" checkpatch:TYPO_SPELLING "checkpatch: the typo"
is "$(rules "$TMP/merged.json" checkpatch:TYPO_SPELLING codespell)" codespell \
	"beside codespell: once, with codespell's line and quote"
is "$(rules "$TMP/cp.json" checkpatch:UNKNOWN_COMMIT_ID)" checkpatch:UNKNOWN_COMMIT_ID \
	"checkpatch: the unknown commit id"
is "$(rules "$TMP/merged.json" checkpatch:UNKNOWN_COMMIT_ID fixes-tag)" fixes-tag \
	"beside fixes-tag on the same id: once"
is "$(json "$TMP/merged.json" "[f['severity'] for f in d['findings'] if f['rule'] == 'signed-off-by']")" \
	"['error']" "the worse severity of the two stays"
lorebot check --mbox "$TMP/merge.mbox" >"$TMP/merged.txt"
is "$(grep -c "'occured' may be" "$TMP/merged.txt")" 1 "lorebot check's text: the typo once"
done_testing

#!/bin/sh
# Series-level checks (Signed-off-by, Fixes:, subjects, numbering, cover
# letter, base-commit), codespell, choosing checkers, and exit statuses.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

# mail N TOTAL "SUBJECT" "BODY" [FROM]: one patch mail adding mm/fileN.c
mail() {
	from=${5:-Ann Author <ann@example.org>}
	cat <<MAIL
From mboxrd@z Thu Jan  1 00:00:00 1970
From: $from
To: linux-mm@kvack.org
Subject: [PATCH $1/$2] $3
Date: Mon, 2 Feb 2026 10:00:0$1 +0000
Message-ID: <s-$1-$2@example.org>
In-Reply-To: <s-0-$2@example.org>
References: <s-0-$2@example.org>

$4
---
diff --git a/mm/file$1.c b/mm/file$1.c
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/mm/file$1.c
@@ -0,0 +1,2 @@
+int file$1_a;
+int file$1_b;

MAIL
}

cover() {
	cat <<MAIL
From mboxrd@z Thu Jan  1 00:00:00 1970
From: Ann Author <ann@example.org>
To: linux-mm@kvack.org
Subject: [PATCH 0/$1] mm: a series
Date: Mon, 2 Feb 2026 10:00:00 +0000
Message-ID: <s-0-$1@example.org>

$2

MAIL
}

SOB="Signed-off-by: Ann Author <ann@example.org>"

# a good series: cover letter with base-commit, clean patches
{
	cover 2 "This series does things.

base-commit: 1234567890abcdef1234567890abcdef12345678"
	mail 1 2 "mm: add file one" "Add the first file.

Fixes: 0123456789ab (\"mm: the broken commit\")
$SOB"
	mail 2 2 "mm/util: add file two" "Add the second file.

$SOB"
} >"$TMP/good.mbox"
lorebot check --mbox "$TMP/good.mbox" --json --checkers=-checkpatch >"$TMP/good.json"
is "$?" 0 "a good series: exit 0"
is "$(json "$TMP/good.json" "d['findings']")" "[]" "a good series: no findings"

# a bad one: no cover letter for 4 patches, 3/4 missing, no base-commit
{
	mail 1 4 "mm: first one." "A recieve typo here, and here: seperate.

Fixes: 01234567 (\"too short\")
Fixes: 0123456789abcd
$SOB"
	mail 2 4 "add a thing without a subsystem" "No sign-off here."
	mail 4 4 "mm: fourth" "Signed by someone else.

Signed-off-by: Bob Other <bob@example.org>"
} >"$TMP/bad.mbox"
lorebot check --mbox "$TMP/bad.mbox" --json --checkers=-checkpatch >"$TMP/bad.json" 2>>"$TMP/stderr"
is "$?" 1 "errors: exit 1"
J=$TMP/bad.json
r() {
	json "$J" "sorted((f['patch'], f['line'], f['severity']) for f in d['findings'] if f['rule'] == '$1')"
}
is "$(r signed-off-by)" "[(2, None, 'error'), (4, None, 'error')]" \
	"signed-off-by: missing (2/4) and not the author's (4/4)"
like "$(json "$J" "[f['message'] for f in d['findings'] if f['rule'] == 'signed-off-by' and f['patch'] == 4][0]")" \
	"Ann Author <ann@example.org>" "signed-off-by: names the author"
is "$(r fixes-tag)" "[(1, 5, 'warning'), (1, 6, 'warning')]" "fixes-tag: short id, no subject"
like "$(json "$J" "' | '.join(f['message'] for f in d['findings'] if f['rule'] == 'fixes-tag')")" \
	"too short.*quoted subject is missing|quoted subject is missing.*too short" \
	"fixes-tag: says what is wrong"
is "$(r subject)" "[(1, 1, 'warning'), (2, 1, 'warning')]" \
	"subject: a full stop (1/4), no subsystem (2/4)"
is "$(r numbering)" "[(0, None, 'error')]" "numbering: 3/4 is missing"
like "$(json "$J" "[f['message'] for f in d['findings'] if f['rule'] == 'numbering'][0]")" \
	"patch 3/4 is missing" "numbering: names the gap"
is "$(r cover-letter)" "[(0, None, 'warning')]" "cover-letter: 4 patches, no cover"
is "$(r base-commit)" "[(0, None, 'note')]" "base-commit: a note"
like "$(json "$J" "[f['suggestion'] for f in d['findings'] if f['rule'] == 'base-commit'][0]")" \
	"git format-patch --base" "base-commit: advises git format-patch --base"
is "$(json "$J" "sorted(f['quote'] for f in d['findings'] if f['rule'] == 'codespell')")" \
	"['recieve', 'seperate']" "codespell: the typos of the commit message"
is "$(r codespell)" "[(1, 3, 'warning'), (1, 3, 'warning')]" "codespell: on commit message line 3"

# a two-patch series needs no cover letter
{
	mail 1 2 "mm: one" "One.

$SOB"
	mail 2 2 "mm: two" "Two.

$SOB"
} >"$TMP/two.mbox"
lorebot check --mbox "$TMP/two.mbox" --json --checkers=-checkpatch >"$TMP/two.json" 2>>"$TMP/stderr"
is "$(json "$TMP/two.json" "[f['rule'] for f in d['findings']]")" "['base-commit']" \
	"two patches without cover: only the base-commit note"

# b4 prep's cover letter, sent as b4 made it
{
	cover 3 "EDITME: describe the purpose of this series. The information you put
here will be used by the project maintainer to make a decision whether
your patches should be reviewed, and in what priority order. Please be
very detailed and link to any relevant discussions or sites that the
maintainer can review to better understand your proposed changes. If you
only have a single patch in your series, the contents of the cover
letter will be appended to the \"under-the-cut\" portion of the patch.

base-commit: 0123456789abcdef0123456789abcdef01234567" |
		sed 's/^Subject: .*/Subject: [PATCH 0\/3] EDITME: cover title for mm-frob/'
	for n in 1 2 3; do mail $n 3 "mm: part $n" "Part $n.

$SOB"; done
} >"$TMP/editme.mbox"
lorebot check --mbox "$TMP/editme.mbox" --json --checkers=-all,cover-letter >"$TMP/editme.json" 2>>"$TMP/stderr"
is "$?" 1 "b4's untouched cover letter: exit 1"
is "$(json "$TMP/editme.json" "[(f['patch'], f['line'], f['severity']) for f in d['findings']]")" \
	"[(0, None, 'error'), (0, 1, 'error')]" "one error for its subject, one for its body's first line"
like "$(json "$TMP/editme.json" "d['findings'][0]['message']")" "subject is the template's \('EDITME'\)" \
	"the subject's: says which text"
like "$(json "$TMP/editme.json" "d['findings'][1]['quote']")" "^EDITME: describe the purpose" \
	"the body's: quotes the line"
sed 's/EDITME: //' "$TMP/editme.mbox" >"$TMP/edited.mbox"
lorebot check --mbox "$TMP/edited.mbox" --json --checkers=-all,cover-letter >"$TMP/edited.json" 2>>"$TMP/stderr"
is "$(json "$TMP/edited.json" "d['findings']")" "[]" "edited: nothing"
sed 's/^Subject: \[PATCH 0\/3\] .*/Subject: [PATCH 0\/3] *** SUBJECT HERE ***/; s/^EDITME: describe.*/*** BLURB HERE ***/' \
	"$TMP/editme.mbox" >"$TMP/fp.mbox"
lorebot check --mbox "$TMP/fp.mbox" --json --checkers=-all,cover-letter >"$TMP/fp.json" 2>>"$TMP/stderr"
is "$(json "$TMP/fp.json" "[(f['line'], f['message'].split('(')[-1]) for f in d['findings']][:1]")" \
	"[(None, \"'*** SUBJECT HERE ***'): give the series a title\")]" \
	"git format-patch --cover-letter's template too"

# --fail-on: the level from which findings fail a hook or a CI job
fail_on() {
	lorebot check --mbox "$TMP/$1.mbox" --checkers="$2" --fail-on="$3" >/dev/null 2>>"$TMP/stderr"
	echo $?
}
is "$(fail_on two -checkpatch warning)" 0 "--fail-on=warning: a note alone passes"
is "$(fail_on two -checkpatch note)" 1 "--fail-on=note: any finding fails"
is "$(fail_on bad -all,codespell error)" 0 "--fail-on=error: warnings alone pass"
is "$(fail_on bad -all,codespell warning)" 1 "--fail-on=warning: codespell's warnings fail"
lorebot check --mbox "$TMP/two.mbox" --fail-on=loud >/dev/null 2>"$TMP/fo.err"
is "$?" 2 "--fail-on=loud: a usage error"
like "$(cat "$TMP/fo.err")" "bad --fail-on 'loud' \(error, warning or note\)" "naming the levels"

# choosing checkers
lorebot check --mbox "$TMP/bad.mbox" --json --checkers=-all >"$TMP/none.json" 2>>"$TMP/stderr"
is "$?" 0 "--checkers=-all: exit 0"
is "$(json "$TMP/none.json" "d['findings']")" "[]" "--checkers=-all: nothing runs"
lorebot check --mbox "$TMP/bad.mbox" --json --checkers=-all,codespell >"$TMP/cs.json" 2>>"$TMP/stderr"
is "$(json "$TMP/cs.json" "sorted(set(f['rule'] for f in d['findings']))")" "['codespell']" \
	"--checkers=-all,codespell: only codespell"
printf '[check]\n\tdisable = codespell\n\tdisable = checkpatch\n' >"$TMP/dis.conf"
lorebot --config "$TMP/dis.conf" check --mbox "$TMP/bad.mbox" --json >"$TMP/dis.json" 2>>"$TMP/stderr"
is "$(json "$TMP/dis.json" "'codespell' in [f['rule'] for f in d['findings']]")" False \
	"check.disable = codespell"
lorebot --config "$TMP/dis.conf" check --mbox "$TMP/bad.mbox" --json --checkers=codespell \
	>"$TMP/reen.json" 2>>"$TMP/stderr"
is "$(json "$TMP/reen.json" "'codespell' in [f['rule'] for f in d['findings']]")" True \
	"--checkers wins over check.disable"
printf '[check]\n\tcodespell = false\n' >"$TMP/nocs.conf"
lorebot --config "$TMP/nocs.conf" check --mbox "$TMP/bad.mbox" --json --checkers=-checkpatch \
	>"$TMP/nocs.json" 2>>"$TMP/stderr"
is "$(json "$TMP/nocs.json" "'codespell' in [f['rule'] for f in d['findings']]")" False \
	"check.codespell = false"
lorebot check --list >"$TMP/list"
like "$(cat "$TMP/list")" "^lazyfree-droppable +on " "--list: the mm rules"
like "$(cat "$TMP/list")" "^checkpatch +on " "--list: checkpatch"

# bad input and usage: exit 2
lorebot check --mbox "$TMP/bad.mbox" --checkers=no-such-rule >/dev/null 2>"$TMP/err"
is "$?" 2 "unknown checker: exit 2"
like "$(cat "$TMP/err")" "unknown checker 'no-such-rule'" "unknown checker: named"
lorebot check --mbox "$TMP/missing.mbox" >/dev/null 2>"$TMP/err"
is "$?" 2 "unreadable mbox: exit 2"
like "$(cat "$TMP/err")" "missing.mbox" "unreadable mbox: named"
cover 2 "no patches at all" >"$TMP/nopatch.mbox"
lorebot check --mbox "$TMP/nopatch.mbox" >/dev/null 2>"$TMP/err"
is "$?" 2 "an mbox without patches: exit 2"
(cd "$TMP" && lorebot check) >/dev/null 2>&1
is "$?" 2 "no --mbox outside a repository: exit 2"
lorebot check --mbox "$TMP/bad.mbox" --repo "$TMP" >/dev/null 2>"$TMP/err"
is "$?" 2 "--repo that is not a repository: exit 2"
like "$(cat "$TMP/err")" "--repo" "--repo: the error names it"

# --preexisting: what the rules see in unchanged code, as notes
python3 "$FIXTURES/check/case2mbox.py" \
	"$FIXTURES/check/cases/lazyfree-droppable/20-neg-unchanged.case" >"$TMP/old.mbox"
lorebot check --mbox "$TMP/old.mbox" --json --checkers=-all,lazyfree-droppable >"$TMP/old.json"
is "$(json "$TMP/old.json" "d['findings']")" "[]" "unchanged code: nothing by default"
lorebot check --mbox "$TMP/old.mbox" --json --checkers=-all,lazyfree-droppable --preexisting \
	>"$TMP/pre.json"
is "$?" 0 "--preexisting: exit 0"
is "$(json "$TMP/pre.json" "[(f['severity'], f.get('preexisting'), f['line']) for f in d['findings']]")" \
	"[('note', True, 1342)]" "--preexisting: a note on the old decision"

# a diff that cannot be parsed is reported, not fatal
sed 's/^@@ -0,0 +1,2 @@$/@@ -0,0 +1,9 @@/' "$TMP/two.mbox" >"$TMP/broken.mbox"
lorebot check --mbox "$TMP/broken.mbox" --json --checkers=-checkpatch >"$TMP/broken.json" 2>"$TMP/err"
rc=$?
ok "a broken diff: exit 0 or 1, not a crash" test "$rc" -le 1
done_testing

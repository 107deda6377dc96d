#!/bin/sh
# A NUL byte in a line of a diff: libgit2 copies the line up to the NUL
# and still gives its full length, so reading it all was a heap
# over-read (ASan aborted apply and check; the release build committed
# bytes from beyond the buffer).  Mail now reads a NUL in the body as
# U+FFFD, as the mail parser documents (`nul-bytes`), before any diff
# parser sees it; line_cb refuses a line whose length disagrees with its
# content all the same (fuzz-diff).  Either way nothing beyond a buffer
# is read or committed, and the series around it goes on.  And since
# issue 38 a patch whose diff had a NUL byte is refused, saying why: with
# U+FFFD in its place, the tree tested would not be the tree mailed.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo

# 1/2 adds a line with a NUL byte; 2/2 is fine
printf 'diff --git a/x.txt b/x.txt\nindex 587be6b..1111111 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1,2 @@\n x\n+ab\0cdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop\n' |
	mkpatch nul 1/2 >nul.mbox
newfile new.txt | mkpatch nul 2/2 >>nul.mbox
ok "the mbox has NUL bytes" grep -qaP '\x00' nul.mbox

lorebot apply --mbox nul.mbox --repo "$R" --json >apply.json 2>apply.err
is "$?" 1 "apply: the series does not apply (exit 1, no crash)"
unlike "$(cat apply.err)" "AddressSanitizer|runtime error" "apply: no over-read"
is "$(statuses apply.json)" "['failed', 'skipped']" "apply: the NUL patch is refused"
like "$(json apply.json "d['patches'][0]['message']")" \
	"NUL bytes .read as U\+FFFD., so the tree tested would not be the tree mailed" \
	"... saying why"
is "$(git --git-dir="$R" for-each-ref refs/heads/lorebot | wc -l)" 0 "... nothing committed"

lorebot check --mbox nul.mbox --repo "$R" --json >check.json 2>check.err
rc=$?
ok "check: ends normally (exit $rc)" test "$rc" = 0 -o "$rc" = 1
unlike "$(cat check.err)" "AddressSanitizer|runtime error" "check: no over-read"
is "$(json check.json "2 in [f['patch'] for f in d['findings']]")" True \
	"check: the patch after it is reviewed"

# a NUL in a removed line
printf 'diff --git a/dir/a/f.txt b/dir/a/f.txt\nindex 1111111..2222222 100644\n--- a/dir/a/f.txt\n+++ b/dir/a/f.txt\n@@ -1 +1 @@\n-i\0n-and-more-bytes-than-it-has\n+out\n' |
	mkpatch nuldel >nuldel.mbox
lorebot apply --mbox nuldel.mbox --repo "$R" --json >nuldel.json 2>nuldel.err
is "$?" 1 "a NUL in a removed line: refused"
like "$(json nuldel.json "d['patches'][0]['message']")" "NUL bytes" \
	"... as a NUL patch"
unlike "$(cat nuldel.err)" "AddressSanitizer|runtime error" "... with no over-read"

# the next series in the same repository applies
newfile other.txt | mkpatch after >after.mbox
lorebot apply --mbox after.mbox --repo "$R" --json >after.json 2>after.err
is "$?" 0 "the next series applies"

# nothing from beyond a buffer reached the repository
is "$(git --git-dir="$R" for-each-ref refs/heads/lorebot | wc -l)" 1 \
	"one branch: the next series'"
ok "git fsck is clean" git --git-dir="$R" fsck --strict --no-dangling
done_testing

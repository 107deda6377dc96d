#!/bin/sh
# Paths as a patch writes them (issue 38, item 9): git's C-quoted form
# ("a/\057abs" is "a//abs", an absolute path once the prefix is gone)
# and an empty component ("dir//x", which libgit2's parser turns into
# "dir/x") were applied, though doc/technical/apply.md refuses both, as
# git apply does.  Each is refused now, saying why, and nothing is
# committed; a well-quoted path still applies.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo
# try NAME WHY DIFF: the patch is refused, saying WHY
try() {
	printf "$3" | mkpatch "$1" >"$1.mbox"
	lorebot apply --mbox "$1.mbox" --repo "$R" --json >"$1.json" 2>"$1.err"
	is "$?" 1 "$1: refused (exit 1)"
	like "$(json "$1.json" "d['patches'][0]['message']")" "$2" "$1: ... saying why"
}
try quoted-abs "absolute path" \
	'diff --git "a/\\057abs" "b/\\057abs"\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ "b/\\057abs"\n@@ -0,0 +1 @@\n+x\n'
try quoted-plus "absolute path" \
	'diff --git a/abs b/abs\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ "b/\\057abs"\n@@ -0,0 +1 @@\n+x\n'
try quoted-empty "empty path component" \
	'diff --git "a/dir/\\057x" "b/dir/\\057x"\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ "b/dir/\\057x"\n@@ -0,0 +1 @@\n+x\n'
try empty-component "empty path component" \
	'diff --git a/dir//x b/dir//x\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/dir//x\n@@ -0,0 +1 @@\n+x\n'
try rename-quoted "absolute path" \
	'diff --git a/x.txt "b/\\057tmp/y"\nsimilarity index 100%%\nrename from x.txt\nrename to "\\057tmp/y"\n'
try unterminated "does not end" \
	'diff --git "a/x b/x\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\n'
is "$(git --git-dir="$R" for-each-ref refs/heads/lorebot | wc -l)" 0 "nothing was committed"
# a quoted path that is fine: a space and UTF-8 in octal in its name
printf 'diff --git "a/dir/caf\\303\\251 x" "b/dir/caf\\303\\251 x"\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ "b/dir/caf\\303\\251 x"\n@@ -0,0 +1 @@\n+x\n' |
	mkpatch fine >fine.mbox
lorebot apply --mbox fine.mbox --repo "$R" --json >fine.json 2>fine.err
is "$?" 0 "a well-quoted path applies"
B=$(json fine.json "d['branch']")
is "$(git -c core.quotePath=false --git-dir="$R" ls-tree -r --name-only "$B" | grep '^dir/caf')" \
	"dir/café x" "... with its name unquoted"
done_testing

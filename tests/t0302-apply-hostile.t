#!/bin/sh
# Hostile patches are refused with a clear message, and nothing outside
# the repository is read or written.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

cd "$TMP" || exit 1
mkdir -p outside
S=$TMP/src
git init -q -b main "$S"
mkdir -p "$S/dir/a/b" && printf 'x\n' >"$S/x.txt" && printf 'in\n' >"$S/dir/a/b/f.txt"
git -C "$S" add -A && git -C "$S" commit -qm base
R=$TMP/outside/repo.git
git clone -q --bare "$S" "$R"
git --git-dir="$R" update-ref refs/heads/mm-new main
touch "$TMP/marker"
sleep 1

# one patch mail: mkpatch NAME [N/M] < diff
mkpatch() {
	n=${2:-}
	{
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
		printf 'From: Eve <eve@example.com>\nDate: Mon, 1 Jun 2026 10:00:0%s +0000\n' "${n%%/*}"
		printf 'Subject: [PATCH%s] %s\nMessage-ID: <%s%s@example.com>\n' "${n:+ $n}" "$1" "$1" "${n%%/*}"
		[ "${n%%/*}" = 2 ] && printf 'In-Reply-To: <%s1@example.com>\nReferences: <%s1@example.com>\n' "$1" "$1"
		printf '\n%s\n\nSigned-off-by: Eve <eve@example.com>\n---\n' "$1"
		cat
		printf -- '-- \n2.39.2\n\n'
	}
}
newfile() {	# path [mode] [content]
	printf 'diff --git a/%s b/%s\nnew file mode %s\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+%s\n' \
		"$1" "$1" "${2:-100644}" "$1" "${3:-pwned}"
	[ "${2:-}" = 120000 ] && printf '\\ No newline at end of file\n'
	true
}

# refuse NAME MESSAGE-REGEX: applying NAME.mbox fails with that message
refuse() {
	lorebot apply --mbox "$1.mbox" --repo "$R" --json >"$1.json" 2>"$1.err"
	rc=$?
	is "$rc" 1 "$1: refused (exit 1)"
	like "$(json "$1.json" "' | '.join(f['message'] for p in d['patches'] for f in p['failures'])")" \
		"$2" "$1: $2"
	is "$(json "$1.json" "d['branch']")" None "$1: no branch"
}

newfile ../escape.txt | mkpatch dotdot >dotdot.mbox
refuse dotdot "refusing path '../escape.txt': '..' path component"

newfile dir/../../escape.txt | mkpatch dotdot2 >dotdot2.mbox
refuse dotdot2 "'\.\.' path component"

newfile "/$TMP/abs-escape.txt" | mkpatch absolute >absolute.mbox
refuse absolute "absolute path in 'diff --git a//"

printf 'diff --git a/x.txt b/x.txt\nindex 587be6b..1111111 100644\n--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-x\n+y\n' |
	mkpatch absolute2 >absolute2.mbox
refuse absolute2 "absolute path in '--- /etc/passwd'"

newfile .git/hooks/pre-commit 100755 | mkpatch dotgit >dotgit.mbox
refuse dotgit "'\.git' path component"
newfile dir/.GIT/config | mkpatch dotgit2 >dotgit2.mbox
refuse dotgit2 "'\.git' path component"

# a symbolic link and a file through it, in one patch
{ newfile evil 120000 dir; newfile evil/passwd; } | mkpatch through >through.mbox
refuse through "'evil/passwd' is beyond a symbolic link written by this patch \('evil'\)"

# ... or in two patches of one series
newfile lnk 120000 dir | mkpatch across 1/2 >across.mbox
newfile lnk/owned | mkpatch across 2/2 >>across.mbox
lorebot apply --mbox across.mbox --repo "$R" --json >across.json 2>across.err
is "$?" 1 "across: the second patch is refused"
is "$(json across.json "[p['status'] for p in d['patches']]")" "['applied', 'failed']" \
	"across: the link itself (inside the tree) applies, the write through it does not"
like "$(json across.json "d['patches'][1]['message']")" \
	"'lnk/owned' is beyond a symbolic link in the tree \('lnk'\)" "across: beyond a symbolic link"

newfile evil 120000 /etc/passwd | mkpatch abslink >abslink.mbox
refuse abslink "refusing 'evil': symbolic link to an absolute path"

newfile dir/evil 120000 ../../etc/passwd | mkpatch uplink >uplink.mbox
refuse uplink "symbolic link pointing outside the tree"

# links that stay inside one by one but leave the tree together
{ newfile dir/a/b/up 120000 ..; newfile esc 120000 dir/a/b/up/../../..; } | mkpatch chain >chain.mbox
refuse chain "refusing 'esc': symbolic link pointing outside the tree \(through other symbolic links\)"

# a mode change that turns a file into a link to outside
printf 'diff --git a/x.txt b/x.txt\nold mode 100644\nnew mode 120000\nindex 587be6b..1111111\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-x\n+/etc/shadow\n\\ No newline at end of file\n' |
	mkpatch modelink >modelink.mbox
refuse modelink "symbolic link to an absolute path"

printf 'diff --git a/sub b/sub\nnew file mode 160000\nindex 0000000..1234567\n--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n+Subproject commit 1234567890123456789012345678901234567890\n' |
	mkpatch submodule >submodule.mbox
refuse submodule "submodule changes are not supported"

# too large: apply.maxpatchsize at the engine, mail.maxsize at the mbox
{ printf 'diff --git a/big.txt b/big.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,2000 @@\n'
  yes '+0123456789012345678901234567890123456789012345678' | head -n 2000; } | mkpatch big >big.mbox
printf '[apply]\n\tmaxpatchsize = 64k\n' >small.conf
lorebot --config small.conf apply --mbox big.mbox --repo "$R" --json >big.json 2>big.err
is "$?" 1 "a 100 KB diff over apply.maxpatchsize 64k: refused"
like "$(json big.json "d['patches'][0]['message']")" "more than apply.maxpatchsize \(65536\); refused" \
	"... naming the limit"

# 200 MB: the mbox reader skips it without holding it
{ printf 'diff --git a/huge.txt b/huge.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/huge.txt\n@@ -0,0 +1,4000000 @@\n'
  yes '+0123456789012345678901234567890123456789012345678' | head -n 4000000; } | mkpatch huge >huge.mbox
lorebot apply --mbox huge.mbox --repo "$R" >huge.out 2>huge.err
is "$?" 2 "a 200 MB patch: refused"
like "$(cat huge.err)" "too large \(20[0-9]{7} bytes, limit 16777216\); skipped" \
	"... as too large, with its size and the limit"
rm -f huge.mbox

# nothing outside the repository was written
is "$(find "$TMP" -newer "$TMP/marker" -type f ! -path "$R/*" | grep -v '\.\(mbox\|json\|err\|out\|conf\)$' |
	grep -v "^$TMP/\.out$")" "" "no file written outside the repository"
ok "no escape.txt anywhere above" test ! -e "$TMP/escape.txt" -a ! -e "$TMP/outside/escape.txt" \
	-a ! -e "$TMP/abs-escape.txt"
is "$(git --git-dir="$R" for-each-ref --format='%(refname)' refs/heads/lorebot | wc -l)" 0 \
	"no branch made by any hostile series"
ok "git fsck --strict is clean" git --git-dir="$R" fsck --strict --no-dangling

done_testing

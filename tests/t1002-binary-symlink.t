#!/bin/sh
# Symbolic links sent as GIT binary patches are checked as text ones
# are: a binary patch with "new file mode 120000" created links to
# absolute paths or out of the tree, and --export wrote them.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo

# refuse NAME MESSAGE-REGEX: NAME.mbox does not apply, for that reason
refuse() {
	lorebot apply --mbox "$1.mbox" --repo "$R" --export "$TMP/trees" --json \
		>"$1.json" 2>"$1.err"
	is "$?" 1 "$1: refused (exit 1)"
	like "$(json "$1.json" "' | '.join(f['message'] for p in d['patches'] for f in p['failures'])")" \
		"$2" "$1: $2"
}

binfile evil /etc/passwd 120000 | mkpatch abs >abs.mbox
ok "abs: it is a binary patch" grep -q "GIT binary patch" abs.mbox
refuse abs "refusing 'evil': symbolic link to an absolute path"

binfile dir/a/up ../../../etc 120000 | mkpatch up >up.mbox
refuse up "refusing 'dir/a/up': symbolic link pointing outside the tree"

binfile dir/g .git/config 120000 | mkpatch dotgit >dotgit.mbox
refuse dotgit "symbolic link into '.git'"

# a link inside the tree, then a patch that writes through it
{ binfile lnk dir 120000; } | mkpatch across 1/2 >across.mbox
newfile lnk/owned | mkpatch across 2/2 >>across.mbox
lorebot apply --mbox across.mbox --repo "$R" --json >across.json 2>across.err
is "$?" 1 "across: the series does not apply whole"
is "$(statuses across.json)" "['applied', 'failed']" \
	"across: the binary link inside the tree applies, the write beyond it does not"
like "$(json across.json "d['patches'][1]['message']")" \
	"'lnk/owned' is beyond a symbolic link in the tree \('lnk'\)" "across: beyond a symbolic link"

# ... and through one written by the same patch
{ binfile lnk2 dir 120000; newfile lnk2/owned; } | mkpatch through >through.mbox
refuse through "'lnk2/owned' is beyond a symbolic link written by this patch"

# the rest of a series: a good patch, then a hostile binary link
newfile good.txt | mkpatch rest 1/2 >rest.mbox
binfile evil /etc/shadow 120000 | mkpatch rest 2/2 >>rest.mbox
lorebot apply --mbox rest.mbox --repo "$R" --json >rest.json 2>rest.err
is "$(statuses rest.json)" "['applied', 'failed']" "rest: 1/2 applies, 2/2 is refused"

# a binary file that is not a link still applies, and exports
binfile blob.bin "$(printf 'data')" | mkpatch bin >bin.mbox
lorebot apply --mbox bin.mbox --repo "$R" --export "$TMP/trees" --json >bin.json 2>bin.err
is "$?" 0 "a binary regular file applies"
ok "... and is exported" test -f "$(json bin.json "d['export']['tree']")/blob.bin"

is "$(find "$TMP/trees" -type l -lname '/*' 2>/dev/null; find "$TMP/trees" -type l -lname '*..*' 2>/dev/null)" "" \
	"no exported tree has a link to an absolute path or upwards"
ok "git fsck is clean" git --git-dir="$R" fsck --strict --no-dangling
done_testing

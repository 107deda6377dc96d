#!/bin/sh
# Links out of the tree through the headers of a text patch: a rename or
# a copy whose source or destination is outside the tree, or beyond a
# link; a link of the base that is harmless where it is and escapes
# where a rename or a copy puts it; a file whose text is a path turned
# into a link by a mode change, alone or on a rename.  Each is refused
# naming the path; the harmless rename of a link applies, and its
# exported trees hold no link out of them and no hard link to a file
# outside them.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo
# the base: links that stay inside where they are, files whose text is a path
ln -s ../.. "$S/dir/a/up"
ln -s dir/a "$S/lnk"
printf '/etc/shadow' >"$S/abs.txt"
printf '../../../../etc' >"$S/dir/rel.txt"
git -C "$S" add -A && git -C "$S" commit -qm links && git -C "$S" push -q "$R" main:mm-new
touch "$TMP/marker"

# refuse NAME MESSAGE-REGEX: NAME.mbox does not apply, for that reason
refuse() {
	lorebot apply --mbox "$1.mbox" --repo "$R" --export "$TMP/trees" --json \
		>"$1.json" 2>"$1.err"
	is "$?" 1 "$1: refused (exit 1)"
	like "$(json "$1.json" "' | '.join(f['message'] for p in d['patches'] for f in p['failures'])")" \
		"$2" "$1: $2"
	is "$(json "$1.json" "d['branch']")" None "$1: no branch"
}

# rename NAME FROM TO [copy] [EXTRA HEADER LINES]: a 100% rename (or copy)
rename() {
	printf 'diff --git a/%s b/%s\n%bsimilarity index 100%%\n%s from %s\n%s to %s\n' \
		"$2" "$3" "${5:-}" "${4:-rename}" "$2" "${4:-rename}" "$3" | mkpatch "$1" >"$1.mbox"
}

rename rename-out x.txt ../escape.txt
refuse rename-out "refusing path '../escape.txt': '..' path component"
rename copy-in ../../etc/passwd stolen copy
refuse copy-in "refusing path '../../etc/passwd': '..' path component"
rename copy-abs /etc/passwd stolen copy
refuse copy-abs "absolute path"
rename copy-through lnk/f.txt stolen copy
refuse copy-through "'lnk/f.txt' is beyond a symbolic link in the tree \('lnk'\)"
rename rename-through x.txt lnk/x.txt
refuse rename-through "'lnk/x.txt' is beyond a symbolic link in the tree \('lnk'\)"
# dir/a/up -> ../.. is the top of the tree; at the top it is its parent
rename rename-up dir/a/up up
refuse rename-up "refusing 'up': symbolic link pointing outside the tree"
rename copy-up dir/a/up up2 copy
refuse copy-up "refusing 'up2': symbolic link pointing outside the tree"
# text that is a path becomes a link: by a mode change, alone or renamed
printf 'diff --git a/abs.txt b/abs.txt\nold mode 100644\nnew mode 120000\n' | mkpatch mode-abs >mode-abs.mbox
refuse mode-abs "refusing 'abs.txt': symbolic link to an absolute path"
printf 'diff --git a/dir/rel.txt b/dir/rel.txt\nold mode 100644\nnew mode 120000\n' | mkpatch mode-rel >mode-rel.mbox
refuse mode-rel "refusing 'dir/rel.txt': symbolic link pointing outside the tree"
rename rename-mode abs.txt evil rename 'old mode 100644\nnew mode 120000\n'
refuse rename-mode "refusing 'evil': symbolic link to an absolute path"
rename copy-mode dir/rel.txt dir/evil copy 'old mode 100644\nnew mode 120000\n'
refuse copy-mode "refusing 'dir/evil': symbolic link pointing outside the tree"

# the rest of a series goes on: a good patch, then a hostile rename
newfile good.txt | mkpatch rest 1/2 >rest.mbox
printf 'diff --git a/dir/a/up b/up\nsimilarity index 100%%\nrename from dir/a/up\nrename to up\n' |
	mkpatch rest 2/2 >>rest.mbox
lorebot apply --mbox rest.mbox --repo "$R" --json >rest.json 2>rest.err
is "$(statuses rest.json)" "['applied', 'failed']" "rest: 1/2 applies, the rename out in 2/2 is refused"

# a rename of a link that stays inside applies, and exports
rename move-link lnk dir/lnk2
lorebot apply --mbox move-link.mbox --repo "$R" --export "$TMP/trees" --json \
	>move-link.json 2>move-link.err
is "$?" 0 "a link renamed where it still points inside applies"
T=$(json move-link.json "d['export']['tree']")
ok "... and is exported as a link" test -L "$T/dir/lnk2"
is "$(find "$TMP/trees" -type l -lname '/*' 2>/dev/null)" "" "no exported link to an absolute path"
# every hard link of an export is to a file of the exports (the base's)
find "$TMP/trees" -type f -links +1 -printf '%i\n' | sort -u >inodes.multi
find "$TMP/trees" -type f -printf '%i\n' | sort | uniq -c |
	awk '$1 > 1 { print $2 }' | sort -u >inodes.inside
ok "the exports share files among themselves" test -s inodes.inside
is "$(comm -23 inodes.multi inodes.inside | head -3)" "" \
	"no exported file is a hard link to a file outside the exports"
is "$(find "$TMP" -newer "$TMP/marker" ! -path "$R/*" ! -path "$TMP/trees/*" -type f |
	grep -v '\.\(mbox\|json\|err\|multi\|inside\)$' | grep -v "^$TMP/\.out$")" "" \
	"nothing written outside the repository and the exports"
ok "git fsck is clean" git --git-dir="$R" fsck --strict --no-dangling
done_testing

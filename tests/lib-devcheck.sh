# Helpers of the "lorebot check in a developer's tree" tests (t08xx),
# sourced after tests/lib.sh.

MM=$(mm_repo) || skip_all "no mm tree (ci/mm-tree.sh)"
DEVFIX=$FIXTURES/devcheck
# git commands that read state must not refresh the index on the way
export GIT_OPTIONAL_LOCKS=0

# dev_clone DIR [DIRECTORY...]: a developer's clone of the 6.12 stand-in
# on branch mm-new; with directories, a sparse checkout of only those
# (fast), else the whole tree
dev_clone() {
	_dv_dir=$1
	shift
	git clone -q --shared --no-checkout "$MM" "$_dv_dir" || return 1
	if [ $# -gt 0 ]; then
		git -C "$_dv_dir" sparse-checkout set "$@" || return 1
	fi
	git -C "$_dv_dir" checkout -q mm-new 2>/dev/null
}

# dev_branch DIR NAME: a branch NAME tracking origin/mm-new, checked out
dev_branch() {
	git -C "$1" checkout -q -b "$2" --track origin/mm-new
}

# dev_am DIR PATCH...: the developer applies patches
dev_am() {
	_dv_dir=$1
	shift
	git -C "$_dv_dir" am -q "$@"
}

# lore_patch N/M: the mail of patch N/M of thread 004 (not a reply)
lore_patch() {
	python3 - "$FIXTURES/lore/004_476fa21b8430df59.mbox" "$1" <<'PY'
import mailbox, sys
for m in mailbox.mbox(sys.argv[1]):
    s = ' '.join(str(m['subject']).split())
    if not s.startswith('Re:') and ' %s]' % sys.argv[2] in s:
        sys.stdout.buffer.write(m.as_bytes(unixfrom=True))
        break
PY
}

# dev_commit DIR SUBJECT FILE PYTHON: commit an edit of FILE made by
# PYTHON (s is the file's text), signed off by the test user
dev_commit() {
	edit_file "$1/$3" "$4" || return 1
	git -C "$1" commit -q -s -m "$2" -- "$3"
}

# dev_state DIR: everything lorebot check must leave alone - HEAD, refs,
# stash, the index file, status; plus what was written after the marker
# file $TMP/marker (nothing, in .git or in the work tree)
dev_state() {
	(
		cd "$1" || exit 1
		git rev-parse HEAD
		git symbolic-ref HEAD
		git for-each-ref --format='%(refname) %(objectname)'
		git stash list
		sha256sum .git/index
		git status --porcelain=v1 --untracked-files=all
		find . -newer "$TMP/marker" -print
	)
}

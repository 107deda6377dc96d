# Helpers of the boot tests (t06*): sourced after tests/lib.sh.
#
# Kernels, selftests and base results are cached per machine under
# $LOREBOT_CACHE/boot (default /var/cache/lorebot as root): the first run
# on a machine builds the 6.12 stand-in for three arches (about 4 minutes
# each with -j2), later runs boot only what changed.

boot_need_tools() {
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || skip_all "$p is not installed"
	done
}

boot_need_all() {
	boot_need_tools git make qemu-system-x86_64 qemu-system-aarch64 \
		qemu-system-riscv64 aarch64-linux-gnu-gcc riscv64-linux-gnu-gcc \
		bwrap
}

# A bare clone of the mm-new stand-in in $TMP/repo; with a fixture patch
# (tests/fixtures/boot/NAME.patch) committed on branch NAME (boot_patch)
boot_repo() {
	mm=$(mm_repo) || skip_all "no mm tree stand-in (ci/mm-tree.sh)"
	git clone -q --bare --shared "$mm" "$TMP/repo" || return 1
	for name in "$@"; do
		boot_patch mm-new "$name" || return 1
	done
}

# boot_patch PARENT NAME: tests/fixtures/boot/NAME.patch committed on
# PARENT in $TMP/repo as branch NAME, as "git am
# --committer-date-is-author-date" would, without its checkout (1.7 GB to
# write and remove): the commit date comes from the patch, so the same
# patch gives the same commit id (and a cached kernel) on every run.
boot_patch() {
	_idx=$TMP/.boot-index
	_info=$(git -C "$TMP/repo" mailinfo "$TMP/.msg" "$TMP/.diff" \
		<"$FIXTURES/boot/$2.patch") || return 1
	_field() { printf '%s\n' "$_info" | sed -n "s/^$1: //p"; }
	_date=$(_field Date)
	rm -f "$_idx"
	GIT_INDEX_FILE=$_idx git -C "$TMP/repo" read-tree "$1" &&
	GIT_INDEX_FILE=$_idx git -C "$TMP/repo" apply --cached "$TMP/.diff" &&
	_tree=$(GIT_INDEX_FILE=$_idx git -C "$TMP/repo" write-tree) &&
	_c=$( { printf '%s\n\n' "$(_field Subject)"; cat "$TMP/.msg"; } |
		git stripspace | GIT_AUTHOR_NAME=$(_field Author) \
		GIT_AUTHOR_EMAIL=$(_field Email) GIT_AUTHOR_DATE=$_date \
		GIT_COMMITTER_DATE=$_date git -C "$TMP/repo" commit-tree -p "$1" "$_tree") &&
	git -C "$TMP/repo" update-ref "refs/heads/$2" "$_c" || return 1
	rm -f "$_idx"
}

# A clone of the stand-in in $TMP/repo with mm-new checked out, for a
# test that edits and commits in it
boot_worktree() {
	mm=$(mm_repo) || skip_all "no mm tree stand-in (ci/mm-tree.sh)"
	git clone -q --shared "$mm" "$TMP/repo" || return 1
	git -C "$TMP/repo" checkout -q mm-new
}

# arch_json FILE ARCH EXPR: EXPR evaluated with a = that arch's object
arch_json() {
	json "$1" "(lambda a: $3)([x for x in d['archs'] if x['arch'] == '$2'][0])"
}

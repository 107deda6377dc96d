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

# A clone of the mm-new stand-in in $TMP/repo; with a fixture patch
# (tests/fixtures/boot/NAME.patch) applied on branch NAME.  The commit
# date comes from the patch, so the same patch gives the same commit id
# (and a cached kernel) on every run.
boot_repo() {
	mm=$(mm_repo) || skip_all "no mm tree stand-in (ci/mm-tree.sh)"
	git clone -q --shared "$mm" "$TMP/repo" || return 1
	git -C "$TMP/repo" checkout -q mm-new
	for name in "$@"; do
		git -C "$TMP/repo" checkout -q -b "$name" mm-new &&
		git -C "$TMP/repo" am -q --committer-date-is-author-date \
			"$FIXTURES/boot/$name.patch" || return 1
	done
}

# arch_json FILE ARCH EXPR: EXPR evaluated with a = that arch's object
arch_json() {
	json "$1" "(lambda a: $3)([x for x in d['archs'] if x['arch'] == '$2'][0])"
}

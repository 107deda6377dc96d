# Helpers of the build tests (t05xx), sourced after tests/lib.sh.
#
# The kernel tree is a --shared clone of the cached mm-new stand-in,
# without a checkout (1.7 GB): fixture series are turned into commits
# with a private index (git apply --cached), as "git am" would.

# build_repo DIR: a clone of the stand-in, no working tree
build_repo() {
	_src=$(mm_repo) || return 1
	git clone -q --bare --shared "$_src" "$1" &&
	git -C "$1" config user.name "lorebot test" &&
	git -C "$1" config user.email test@lorebot.invalid
}

# apply_series REPO BRANCH PATCHDIR [BASE]: commit each patch of PATCHDIR
# (git format-patch output, in order) on BASE (default mm-new) as BRANCH
apply_series() {
	_repo=$1 _branch=$2 _dir=$3 _head=$(git -C "$1" rev-parse "${4:-mm-new}")
	_idx=$TMP/.apply-index
	for _p in "$_dir"/*.patch; do
		_info=$(git -C "$_repo" mailinfo "$TMP/.msg" "$TMP/.diff" <"$_p") || return 1
		_author=$(printf '%s\n' "$_info" | sed -n 's/^Author: //p')
		_email=$(printf '%s\n' "$_info" | sed -n 's/^Email: //p')
		_subject=$(printf '%s\n' "$_info" | sed -n 's/^Subject: //p')
		rm -f "$_idx"
		GIT_INDEX_FILE=$_idx git -C "$_repo" read-tree "$_head" &&
		GIT_INDEX_FILE=$_idx git -C "$_repo" apply --cached "$TMP/.diff" &&
		_tree=$(GIT_INDEX_FILE=$_idx git -C "$_repo" write-tree) &&
		_head=$( { printf '%s\n\n' "$_subject"; cat "$TMP/.msg"; } |
			GIT_AUTHOR_NAME=$_author GIT_AUTHOR_EMAIL=$_email \
			git -C "$_repo" commit-tree -p "$_head" "$_tree") || return 1
	done
	rm -f "$_idx"
	git -C "$_repo" update-ref "refs/heads/$_branch" "$_head"
}

# build_config FILE [KEY VALUE]...: a lorebot configuration for the tests
# (small profile, -j2, long step timeout: a cold base build takes minutes)
build_config() {
	_f=$1
	shift
	{
		printf '[build]\n\tprofile = small\n\tjobs = 2\n\ttimeout = 40m\n'
		# the fixture series are the tests' own: their objects may join
		# the shared ccache (a warm machine compiles each once); sparse is
		# t0525's (both are given back to a test that is about them)
		printf '\tccachewrite = all\n\tsparse = false\n'
		while [ $# -ge 2 ]; do
			_sec=${1%%.*} _key=${1##*.} _sub=${1#*.}
			_sub=${_sub%.*}
			if [ "$_sub" = "$_key" ]; then
				printf '[%s]\n\t%s = %s\n' "$_sec" "$_key" "$2"
			else
				printf '[%s "%s"]\n\t%s = %s\n' "$_sec" "$_sub" "$_key" "$2"
			fi
			shift 2
		done
	} >"$_f"
}

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
		# t0525's, clang t0527's (given back to a test that is about them)
		printf '\tccachewrite = all\n\tsparse = false\n\tclang =\n'
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

# checker_finding BRANCH TOOL NAME MESSAGE LINE_PATTERN [BUILD ARGS...]:
# build the one-patch series BRANCH of $R on x86_64 with $TMP/bot.conf
# ($TMP/out.json, logs in $TMP/logs) and check that its one new finding is
# TOOL's, a warning in mm/util.c on patch 1, whose message matches MESSAGE,
# at the line of the patched mm/util.c that LINE_PATTERN (grep) finds;
# that the checker NAME ("sparse", "coccicheck", "clang") went over the
# one touched file, and that nothing of TOOL pre-existing is attributed to
# the patch.  Sets J, X (the arch's), NEW (its new findings) and LINE.
checker_finding() {
	_branch=$1 _tool=$2 _name=$3 _msg=$4 _pat=$5
	shift 5
	lorebot --config "$TMP/bot.conf" build --repo "$R" --series "$_branch" \
		--arch x86_64 --log-dir "$TMP/logs" --json "$@" >"$TMP/out.json" 2>"$TMP/err"
	is "$?" 1 "exit 1 (a new warning)"
	J=$TMP/out.json
	X="d['archs'][0]"
	NEW="[f for f in $X['findings'] if f['new']]"
	is "$(json $J "$X['status']")" warnings "status warnings"
	is "$(json $J "[(f['patch'], f['tool'], f['file'], f['severity'], f['w1']) for f in $NEW]")" \
		"[(1, '$_tool', 'mm/util.c', 'warning', False)]" \
		"exactly one new finding: $_tool's, in mm/util.c, patch 1"
	like "$(json $J "$NEW[0]['message']")" "$_msg" "$_tool's message"
	LINE=$(git -C "$R" show "$_branch:mm/util.c" | grep -n "$_pat" | cut -d: -f1)
	is "$(json $J "$NEW[0]['line']")" "$LINE" "at its line"
	is "$(json $J "$X['patches'][0]['${_name}_files']")" 1 "$_name went over the one touched file"
	ok "its log is kept" test -s "$(json $J "$X['patches'][0]['${_name}_log']")"
	is "$(json $J "[f['message'] for f in $X['findings'] if f['tool'] == '$_tool' and not f['new'] and f['patch']]")" \
		"[]" "no pre-existing $_tool finding is attributed to the patch"
}

# checker_off BRANCH TOOL OPTION WHY: the build of BRANCH with OPTION
# ("--no-sparse") exits 0 (WHY: why nothing else finds it) and has no
# finding of TOOL
checker_off() {
	lorebot --config "$TMP/bot.conf" build --repo "$R" --series "$1" \
		--arch x86_64 "$3" --log-dir "$TMP/logs-n" --json >"$TMP/no.json" 2>"$TMP/no.err"
	is "$?" 0 "$3: exit 0 ($4)"
	is "$(json "$TMP/no.json" "[f for f in d['archs'][0]['findings'] if f['tool'] == '$2']")" \
		"[]" "$3: no $2 finding"
}

# checker_docs TOOL...: a docs-only series (fixture docs, applied as branch
# docs) exits 0 with no finding of the TOOLs and nothing new
checker_docs() {
	_tools=$(printf "'%s', " "$@")
	lorebot --config "$TMP/bot.conf" build --repo "$R" --series docs \
		--arch x86_64 --log-dir "$TMP/logs-d" --json >"$TMP/docs.json" 2>"$TMP/docs.err"
	is "$?" 0 "docs-only series: exit 0"
	is "$(json "$TMP/docs.json" "[f for f in d['archs'][0]['findings'] if f['tool'] in ($_tools) or f['new']]")" \
		"[]" "docs-only series: no $* finding, nothing new"
}

# Shell test library: TAP output, a private temp dir per test, helpers.
# Usage in tests/tNNNN-name.t:
#	. "${LOREBOT_SRC:-.}/tests/lib.sh"
#	plan 3
#	ok "lorebot runs" lorebot version
#	is "$(echo a)" "a" "echo works"
#	done_testing
# Environment: LOREBOT (binary under test), LOREBOT_SRC (source tree).

set -u
LOREBOT_SRC=${LOREBOT_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
LOREBOT=${LOREBOT:-$LOREBOT_SRC/build/lorebot}
FIXTURES=$LOREBOT_SRC/tests/fixtures
export LOREBOT_SRC LOREBOT FIXTURES

TEST_NAME=$(basename "$0" .t)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lorebot-$TEST_NAME.XXXXXX")
export HOME=$TMP/home
mkdir -p "$HOME"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$HOME/.gitconfig
export GIT_AUTHOR_NAME="lorebot test" GIT_AUTHOR_EMAIL=test@lorebot.invalid
export GIT_COMMITTER_NAME="lorebot test" GIT_COMMITTER_EMAIL=test@lorebot.invalid
# Artifacts (screenshots, logs) that outlive the temp dir
ARTIFACTS=${LOREBOT_ARTIFACTS:-$LOREBOT_SRC/tests/artifacts}/$TEST_NAME

_tap_n=0
_tap_failed=0
_cleanup_cmds=

cleanup_add() {
	_cleanup_cmds="$1
$_cleanup_cmds"
}

_cleanup() {
	eval "$_cleanup_cmds" >/dev/null 2>&1 || true
	if [ "${LOREBOT_KEEP_TMP:-}" = "" ] && [ "$_tap_failed" = 0 ]; then
		rm -rf "$TMP"
	else
		echo "# kept $TMP" >&2
	fi
}
trap _cleanup EXIT
trap 'exit 130' INT TERM

plan() {
	echo "1..$1"
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

_result() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_failed=$((_tap_failed + 1))
	fi
}

diag() {
	echo "$*" | sed 's/^/# /'
}

# skip REASON: one test that cannot be run here, and why
skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n # skip $1"
}

# ok DESCRIPTION COMMAND [ARGS...]: passes when the command exits 0
ok() {
	_d=$1
	shift
	if "$@" >"$TMP/.out" 2>&1; then
		_result 0 "$_d"
	else
		_result 1 "$_d"
		diag "command: $*"
		sed 's/^/#   /' "$TMP/.out" | head -40
	fi
}

# fails DESCRIPTION COMMAND...: passes when the command exits non-zero
fails() {
	_d=$1
	shift
	if "$@" >"$TMP/.out" 2>&1; then
		_result 1 "$_d"
		diag "command unexpectedly succeeded: $*"
	else
		_result 0 "$_d"
	fi
}

# is GOT EXPECTED DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then
		_result 0 "$3"
	else
		_result 1 "$3"
		diag "got:      '$1'"
		diag "expected: '$2'"
	fi
}

# like GOT REGEX DESCRIPTION (grep -E)
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		_result 0 "$3"
	else
		_result 1 "$3"
		diag "got:      '$(printf '%s' "$1" | head -c 2000)'"
		diag "expected to match: '$2'"
	fi
}

unlike() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		_result 1 "$3"
		diag "got:      '$(printf '%s' "$1" | head -c 2000)'"
		diag "expected not to match: '$2'"
	else
		_result 0 "$3"
	fi
}

done_testing() {
	echo "1..$_tap_n"
	[ "$_tap_failed" = 0 ]
}

lorebot() {
	"$LOREBOT" "$@"
}

# Debian's python3 (with Debian's modules, and without a version manager's
# start-up cost) when it is there
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
else
	PY=python3
fi

# jq-like queries without jq: python3 is part of Debian's base
# link_objects FROM TO: TO/<layer>/ (and bot/<subsystem>/) holds links to the objects of the
# build directory FROM, the layers' (t0005, t0006 plant more beside them)
link_objects() {
	for _l in cmd ci checkers bot lib; do
		mkdir -p "$2/$_l"
		(cd "$1" && find "$_l" -name '*.o') | while read -r _o; do
			mkdir -p "$2/$(dirname "$_o")"
			ln -s "$1/$_o" "$2/$_o"
		done
	done
}

json() {
	"$PY" -c "import json,sys
d=json.load(open(sys.argv[1]) if sys.argv[1] != '-' else sys.stdin)
print(eval(sys.argv[2], {'d': d, 'len': len, 'sorted': sorted, 'any': any, 'all': all, 'set': set, 'json': json}))" "$@"
}

# edit_file FILE PYTHON: rewrite FILE with the value of the PYTHON
# expression (s is the file's text); fails when nothing changed
edit_file() {
	"$PY" - "$1" "$2" <<'PY'
import sys
s = open(sys.argv[1]).read()
new = eval(sys.argv[2])
if new == s:
    sys.exit("the edit changed nothing")
open(sys.argv[1], "w").write(new)
PY
}

# A free TCP port on 127.0.0.1
free_port() {
	"$PY" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The cached local stand-in for mm-new (ci/mm-tree.sh)
mm_repo() {
	"$LOREBOT_SRC/ci/mm-tree.sh"
}

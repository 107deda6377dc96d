# shellcheck shell=sh
# The arguments of the tree checks, ci/check-layers.sh and
# ci/check-prefixes.sh, which source this with NAME set to theirs:
#   [SRCDIR [OBJDIR]], -h or --help (the check's header comment).
# Leaves the shell in SRCDIR (default: the one holding the check) with
# obj the build directory (default: build, an OBJDIR given relative to
# where the check was called taken from there) and LAYERS the layers'
# directories, top to bottom; exits 2 on a usage error.

case ${1:-} in
-h|--help)
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
	exit 0 ;;
-*)
	echo "$NAME: unknown option '$1'" >&2
	exit 2 ;;
esac
[ $# -le 2 ] || { echo "usage: ci/$NAME.sh [SRCDIR [OBJDIR]]" >&2; exit 2; }

src=${1:-$(dirname "$0")/..}
obj=${2:-}
# OBJDIR as given, relative to where we were called
case $obj in
""|/*) ;;
*) obj=$PWD/$obj ;;
esac
cd "$src" || exit 2
obj=${obj:-build}
LAYERS="cmd ci checkers bot lib"
for l in $LAYERS; do
	[ -d "$l" ] || { echo "$NAME: no '$l' in '$PWD'" >&2; exit 2; }
done

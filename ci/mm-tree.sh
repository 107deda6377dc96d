#!/bin/sh
# Prepare the local stand-in for the mm tree: Debian's linux-source-6.12
# imported as a bare git repository with a branch "mm-new".
#
# usage: ci/mm-tree.sh [--print]
#
# The repository is cached per machine in $LOREBOT_CACHE/mm.git
# (default /var/cache/lorebot as root, ~/.cache/lorebot otherwise) and
# built once: later calls only print its path.  The import commit has a
# fixed author, committer and date, so the same linux-source package
# gives the same commit id on every machine.
set -eu

cache=${LOREBOT_CACHE:-}
if [ -z "$cache" ]; then
	if [ "$(id -u)" = 0 ]; then
		cache=/var/cache/lorebot
	else
		cache=${XDG_CACHE_HOME:-$HOME/.cache}/lorebot
	fi
fi
repo=$cache/mm.git
tarball=${LOREBOT_LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}

mkdir -p "$cache"
exec 9>"$cache/mm.git.lock"
flock 9

if [ -f "$repo/lorebot-ready" ]; then
	echo "$repo"
	exit 0
fi

if [ ! -r "$tarball" ]; then
	echo "mm-tree: $tarball missing (apt-get install linux-source-6.12)" >&2
	exit 1
fi

tmp=$(mktemp -d "$cache/import.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "mm-tree: extracting $tarball (about 10 s)" >&2
tar -C "$tmp" -xJf "$tarball"
src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)

# Debian's packaging appends a block that ignores every top-level path
# ("/*" then "!/debian/"); drop it or the import commits nothing.
if grep -q '^/\*$' "$src/.gitignore"; then
	awk '/^# Debian packaging/ { exit } { l[n++] = $0 }
	     END { while (n && l[n - 1] ~ /^#?$/) n--
		   for (i = 0; i < n; i++) print l[i] }' \
		"$src/.gitignore" >"$tmp/gitignore"
	cp "$tmp/gitignore" "$src/.gitignore"
fi

version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
echo "mm-tree: importing into $repo (about 30 s)" >&2
rm -rf "$repo.new"
git init -q --bare "$repo.new"
export GIT_DIR="$repo.new" GIT_WORK_TREE="$src"
export GIT_AUTHOR_NAME="lorebot import" GIT_AUTHOR_EMAIL="lorebot@localhost"
export GIT_COMMITTER_NAME="lorebot import" GIT_COMMITTER_EMAIL="lorebot@localhost"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00 +0000" GIT_COMMITTER_DATE="2026-01-01T00:00:00 +0000"
git -c core.autocrlf=false add -A -f
git -c core.autocrlf=false commit -q -m "Linux 6.12 (Debian linux-source-6.12 $version)

Imported by lorebot's ci/mm-tree.sh as a local stand-in for the mm
tree's mm-new branch."
git branch -m mm-new 2>/dev/null || git symbolic-ref HEAD refs/heads/mm-new
git update-ref refs/heads/mm-new HEAD
git symbolic-ref HEAD refs/heads/mm-new
# one pack (no delta search: fast) instead of 86,000 loose objects,
# which slow every clone and read
git repack -adq --window=0
unset GIT_DIR GIT_WORK_TREE
touch "$repo.new/lorebot-ready"
rm -rf "$repo"
mv "$repo.new" "$repo"
echo "mm-tree: mm-new is $(git --git-dir="$repo" rev-parse mm-new)" >&2
echo "$repo"

#!/bin/sh
# After a series' build, the next user of the build directory removes
# what it left in obj/ and makes the base again, so that obj/ is whole
# and recorded once more.  That is done before the first untrusted make,
# not when the directory is opened: a boot of a kernel built already
# makes nothing and leaves it due (obj.refresh) to the next job that
# builds; a series' build does it before its patches, apart from them;
# a trusted make of the image (a git.base commit) makes it needless.
# On the stand-in that builds in a second (tests/sec-lib.sh fake_kernel).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
# the build user (build.user, nobody, when this runs as root) reaches the tree
chmod 0755 "$TMP"
fake_kernel
# and what the boot stage hashes to find the selftests it built for a tree
mkdir -p "$FKW/tools" "$FKW/include/uapi" "$FKW/arch/x86"
for f in Kbuild tools/Makefile include/uapi/Kbuild mm/gup_test.h arch/x86/Makefile; do
	echo "# $f" >"$FKW/$f"
done
git -C "$FKW" add -A
git -C "$FKW" -c user.name=t -c user.email=t@example.com commit -qm "what the boot stage reads"
git -C "$FKW" push -q -f "$FK" main:main main:mm-new
CONF=$TMP/bot.conf
fake_build_config "$CONF"
B0=$(git --git-dir="$FK" rev-parse mm-new)
fake_series good1 mm/good1.c 'int good1;'
fake_series good2 mm/good2.c 'int good2;'
# mm-new moves on by a commit: a git.base commit, trusted
fake_series next mm/next.c 'int next;'
git --git-dir="$FK" update-ref refs/heads/mm-new next

# build NAME ARGS...: lorebot build on B0, x86_64, logs in logs-NAME
build() {
	_n=$1
	shift
	timeout 120 "$LOREBOT" --config "$CONF" build --repo "$FK" --arch x86_64 \
		--log-dir "$TMP/logs-$_n" --json "$@" >"$TMP/$_n.json" 2>"$TMP/$_n.err"
}
refreshed() {
	json "$TMP/$1.json" "d['archs'][0]['base']['refresh_seconds'] is not None"
}
# logs NAME: the steps' names of a build, in order
logs() {
	ls "$1" | sed -n 's/^[0-9]*-\(.*\)\.log$/\1/p' | tr '\n' ' '
}

build first --series good1 --base "$B0"
is "$?" 0 "a series on a new base: exit 0"
D=$(json "$TMP/first.json" "d['archs'][0]['build_dir']")
is "$(refreshed first)" False "the base was built, not made again"

# boot ARG NAME: lorebot boot of good1 on x86_64 (on this tree it gets
# as far as its kernels: it has no selftests to build)
boot() {
	timeout 120 "$LOREBOT" --config "$CONF" boot --repo "$FK" --series good1 \
		--arch x86_64 --workdir "$TMP/$1" --json >"$TMP/$1.json" 2>"$TMP/$1.err"
	like "$(json "$TMP/$1.json" "d['archs'][0]['message']")" "headers_install" \
		"$1: it got as far as the selftests"
}
# a boot after it makes the base's kernel, the base made again on the way
boot boot1
is "$(logs "$TMP/boot1/build-x86_64")" "base " "a boot that builds the base's kernel: one make"
ok "... the image is kept" test -n "$(find "$TMP/fake-cache/boot/kernels/x86_64" -name bzImage)"
ok "... nothing is left due" test ! -e "$D/obj.refresh"
build second --series good2 --base "$B0"
is "$(logs "$TMP/logs-second/x86_64")" "patch-1 " \
	"the next series finds obj/ as recorded: its one make is its patch's"

# the same boot after that series: its kernel is there, nothing is made
boot boot2
is "$(logs "$TMP/boot2/build-x86_64" 2>/dev/null)" "" "a boot of a kernel built already makes nothing"
like "$(cat "$TMP/boot2.err")" "removed [0-9]+ entries of obj/" \
	"... though it removed what the last series left"
ok "... and leaves the base to be made again" test -e "$D/obj.refresh"

# the next series' build makes it, before its patches
build third --series good1 --base "$B0"
is "$?" 0 "the next series: exit 0"
is "$(refreshed third)" True "the base was made again (base.refresh_seconds)"
is "$(logs "$TMP/logs-third/x86_64")" "base patch-1 " "... before patch 1, a step of its own"
ok "... nothing is left due" test ! -e "$D/obj.refresh"

# a git.base commit's make on obj/ as a series left it does it on the way
build trusted --range "$B0..mm-new"
is "$?" 0 "a trusted commit: exit 0"
is "$(json "$TMP/trusted.json" "d['archs'][0]['build_dir']")" "$D" "... in the same directory"
is "$(refreshed trusted)" False "the base was not made again apart"
is "$(logs "$TMP/logs-trusted/x86_64")" "patch-1 " "... its one make was the patch's"
ok "... and nothing is left due" test ! -e "$D/obj.refresh"
build after --series good2 --base "$B0"
is "$(refreshed after)" False "the series after it finds obj/ as recorded: nothing to make again"
is "$(logs "$TMP/logs-after/x86_64")" "patch-1 " "... its one make is its patch's"

# after that series, one from another repository, which does not have
# the commit the source tree holds: made again all the same
git clone -q --bare --no-local --single-branch -b main "$FK" "$TMP/other.git"
git -C "$FKW" checkout -q -B good3 main
echo 'int good3;' >"$FKW/mm/good3.c"
git -C "$FKW" add -A
git -C "$FKW" -c user.name=Eve -c user.email=eve@example.com commit -qm "mm: good3"
git -C "$FKW" push -q "$TMP/other.git" good3 main:mm-new
git -C "$FKW" checkout -q main
timeout 120 "$LOREBOT" --config "$CONF" build --repo "$TMP/other.git" --series good3 \
	--arch x86_64 --log-dir "$TMP/logs-other" --json >"$TMP/other.json" 2>"$TMP/other.err"
is "$?" 0 "a series of another repository: exit 0"
is "$(json "$TMP/other.json" "(d['archs'][0]['build_dir'], d['archs'][0]['status'])")" "('$D', 'ok')" \
	"... in the same directory: ok"
is "$(logs "$TMP/logs-other/x86_64")" "base patch-1 " "... the base made again before its patch"
done_testing

#!/bin/sh
# A fork bomb in a mailed Makefile (issue 38, item 8): the build's make
# runs under RLIMIT_NPROC (build.processes), as the build user, so the
# bomb's forks fail at the limit; the build ends, and a benign series on
# the same base builds after it.  The bomb stops by itself at 500
# children (each sleeps, then all are killed), so that a missing limit
# shows as "forked 500 of 500" rather than taking the machine down.  As
# root (make runs as build.user, nobody) and as the user lorebot.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
chmod 0755 "$TMP"
fake_kernel
bomb='use strict; my @kids; for (1 .. 500) { my $p = fork; last unless defined $p;
if (!$p) { sleep 60; exit 0 } push @kids, $p }
print "BOMB forked ", scalar(@kids), " of 500\n"; kill "KILL", @kids; 1 while wait != -1;'
fake_series bomb mm/bomb.pl "$bomb" mm/Makefile 'POST = perl mm/bomb.pl'
fake_series good mm/good.c 'int good;'

# pass WHO [RUNAS...]: build the bomb, then the benign series, with a
# cache of WHO's own
pass() {
	who=$1
	shift
	CONF=$TMP/$who.conf
	fake_build_config "$CONF" build.processes 150
	sed -i "s|$TMP/fake-cache|$TMP/cache-$who|" "$CONF"
	mkdir -p "$TMP/cache-$who" "$TMP/logs-$who"
	[ "$who" = user ] && chown -R lorebot: "$TMP/cache-$who" "$TMP/logs-$who"
	for s in bomb good; do
		"$@" timeout 300 "$LOREBOT" --config "$CONF" build --repo "$FK" --series $s \
			--base mm-new --arch x86_64 --log-dir "$TMP/logs-$who/$s" --json \
			>"$TMP/$who-$s.json" 2>"$TMP/$who-$s.err"
		echo $? >"$TMP/$who-$s.rc"
	done
	rc=$(cat "$TMP/$who-bomb.rc")
	ok "$who: the bomb's build ends (exit $rc)" test "$rc" != 124 -a "$rc" -le 3
	forked=$(grep -rh "BOMB forked" "$TMP/logs-$who/bomb" | head -1)
	diag "$who: $forked"
	like "$forked" "BOMB forked [0-9]+ of 500" "$who: the bomb ran"
	n=$(printf '%s\n' "$forked" | sed -n 's/.*forked \([0-9]*\) of.*/\1/p')
	ok "$who: ... its forks failed at the limit (forked ${n:-?} of 500)" test "${n:-500}" -lt 150
	is "$(cat "$TMP/$who-good.rc")" 0 "$who: a benign series after it: exit 0"
	is "$(json "$TMP/$who-good.json" "d['archs'][0]['status']" 2>/dev/null)" ok \
		"$who: ... it builds"
}

pass root
if [ "$(id -u)" = 0 ] && id -u lorebot >/dev/null 2>&1 &&
	runuser -u lorebot -- test -x "$LOREBOT" 2>/dev/null; then
	chown -R lorebot: "$FK"
	pass user runuser -u lorebot -- env HOME="$TMP"
else
	for i in 1 2 3 4 5 6; do skip "no user lorebot that can run $LOREBOT"; done
fi
done_testing

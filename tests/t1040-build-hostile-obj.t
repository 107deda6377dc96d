#!/bin/sh
# What a series' make leaves in the shared obj/ for lorebot's own process
# (issue 38, items 2 and 4): a symbolic link, then a FIFO, at each path
# lorebot itself opens after make (obj/.config, obj/.lorebot-ccache.log,
# the image obj/arch/x86/boot/bzImage).  A link is never followed, a
# FIFO never waited on (before, one blocked lorebot in open() until the
# job's time limit), and neither breaks the builds after it: a benign
# series on the same base and arch builds (before, every later build on
# the base ended "infra: cannot restore .../obj/.config").  The tree is a
# stand-in that builds in a second (tests/sec-lib.sh fake_kernel).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
# the build user (build.user, nobody, when this runs as root) reaches the tree
chmod 0755 "$TMP"
fake_kernel
CONF=$TMP/bot.conf
fake_build_config "$CONF"
plant_links='POST = ln -sfn /etc/passwd $(O)/.config; ln -sfn /etc/passwd $(O)/.lorebot-ccache.log; ln -sfn /etc/passwd $(O)/arch/x86/boot/bzImage'
plant_fifos='POST = rm -f $(O)/.config $(O)/.lorebot-ccache.log $(O)/arch/x86/boot/bzImage; mkfifo $(O)/.config $(O)/.lorebot-ccache.log $(O)/arch/x86/boot/bzImage'
fake_series links mm/Makefile "$plant_links"
fake_series fifos mm/Makefile "$plant_fifos"
fake_series good1 mm/good1.c 'int good1;'
fake_series good2 mm/good2.c 'int good2;'

# build SERIES: lorebot build of it on mm-new, x86_64; a hang is stopped
# at 120 s (exit 124), far beyond the second a build of this tree takes
build() {
	timeout 120 "$LOREBOT" --config "$CONF" build --repo "$FK" --series "$1" \
		--base mm-new --arch x86_64 --log-dir "$TMP/logs-$1" --json \
		>"$TMP/$1.json" 2>"$TMP/$1.err"
}
status() {
	json "$TMP/$1.json" "d['archs'][0]['status']" 2>/dev/null
}

build links
rc=$?
ok "a series that leaves links: lorebot build ends (exit $rc)" test "$rc" != 124 -a "$rc" -le 3
unlike "$(cat "$TMP/links.err")" "AddressSanitizer|runtime error" "... no sanitizer report"
is "$(grep -rl '^root:' "$TMP/logs-links" 2>/dev/null)" "" "... nothing of /etc/passwd was copied into its logs"
build good1
is "$?" 0 "a benign series on the same base after it: exit 0"
is "$(status good1)" ok "... it builds (not infra: obj/.config restored)"
ok "... its image was kept, a file" test -f "$TMP/logs-good1/x86_64/bzImage"

# the FIFOs on a base of their own (a cache of their own), whatever the
# links did
mv "$TMP/fake-cache" "$TMP/links-cache"
build fifos
rc=$?
ok "a series that leaves FIFOs: lorebot build ends, nothing waits on them (exit $rc)" \
	test "$rc" != 124 -a "$rc" -le 3
ok "... it printed its result" test -s "$TMP/fifos.json"
build good2
is "$?" 0 "a benign series on the same base after it: exit 0"
is "$(status good2)" ok "... it builds"
ok "... its image was kept, a file" test -f "$TMP/logs-good2/x86_64/bzImage"
like "$(cat "$TMP/good1.err" "$TMP/good2.err")" "removed [0-9]+ entries of obj/" \
	"the guard removed what the series left"
is "$(find "$TMP/fake-cache" "$TMP/links-cache" -path '*/obj/*' \( -type p -o -type l \) | head -3)" "" \
	"no FIFO or link is left in obj/"
done_testing

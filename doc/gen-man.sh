#!/bin/sh
# Write the generated man pages: lorebot.conf(5) from the key table and
# the pages of the commands whose --help text is their manual.
# Usage: doc/gen-man.sh [LOREBOT]   (default build/lorebot)
# tests/t0003-man-pages.t checks that the committed pages are this output.
set -eu
bin=${1:-build/lorebot}
here=$(dirname "$0")

# command, then the pages its SEE ALSO names
pages() {
	cat <<'LIST'
reply lorebot(1) lorebot-daemon(8) lorebot.conf(5) lorebot-json(7)
serve lorebot(1) lorebot-daemon(8) lorebot.conf(5) lorebot-json(7)
build lorebot(1) lorebot-boot(1) lorebot-check(1) lorebot.conf(5) lorebot-json(7)
boot lorebot(1) lorebot-build(1) lorebot-check(1) lorebot.conf(5) lorebot-json(7)
LIST
}

out=${OUT:-$here}
sh "$here/gen-conf5.sh" "$bin" >"$out/lorebot.conf.5"
pages | while read -r cmd see; do
	# shellcheck disable=SC2086
	"$bin" "$cmd" --help | python3 "$here/help2roff.py" "$cmd" 1 $see \
		>"$out/lorebot-$cmd.1"
done

#!/bin/sh
# Write the generated man pages: lorebot.conf(5) from the key table, the
# pages of the commands whose --help text is their manual, lorebot-daemon(8)
# from its Markdown source (doc/lorebot-daemon.8.md, doc/md2man.py), the
# option lists of the pages written by hand (lorebot(1), lorebot-check(1))
# and of lorebot-daemon(8) from the option tables, and the key list of
# doc/technical/configuration.md from the key table.
# Usage: doc/gen-man.sh [LOREBOT]   (default build/lorebot)
# tests/t0003-man-pages.t checks that the committed pages are this output.
set -eu
bin=${1:-build/lorebot}
here=$(dirname "$0")

# command, then the pages its SEE ALSO names
pages() {
	cat <<'LIST'
series lorebot(1) lorebot-fetch(1) lorebot-show(1) lorebot-results(7)
mailinfo lorebot(1) lorebot-series(1) lorebot-apply(1)
apply lorebot(1) lorebot-series(1) lorebot-check(1) lorebot.conf(5) lorebot-results(7)
fetch lorebot(1) lorebot-series(1) lorebot-db(1) lorebot-daemon(8) lorebot.conf(5) lorebot-results(7)
show lorebot(1) lorebot-series(1) lorebot-fetch(1) lorebot-results(7)
db lorebot(1) lorebot-fetch(1) lorebot-series(1) lorebot-daemon(8)
record lorebot(1) lorebot-reply(1) lorebot-daemon(8) lorebot-results(7)
reply lorebot(1) lorebot-daemon(8) lorebot.conf(5) lorebot-results(7)
serve lorebot(1) lorebot-daemon(8) lorebot.conf(5) lorebot-results(7)
build lorebot(1) lorebot-boot(1) lorebot-check(1) lorebot.conf(5) lorebot-results(7)
boot lorebot(1) lorebot-build(1) lorebot-check(1) lorebot.conf(5) lorebot-results(7)
status lorebot(1) lorebot-job(1) lorebot-daemon(8) lorebot-results(7)
job lorebot(1) lorebot-status(1) lorebot-daemon(8)
config lorebot(1) lorebot.conf(5)
reproduce lorebot(1) lorebot-reply(1) lorebot-serve(1) lorebot-build(1) lorebot.conf(5)
patchwork lorebot(1) lorebot-daemon(8) lorebot-b4-check(1) lorebot.conf(5)
export lorebot(1) lorebot-daemon(8) lorebot.conf(5) lorebot-results(7)
b4-check lorebot(1) lorebot-check(1) lorebot-patchwork(1) lorebot-serve(1)
LIST
}

out=${OUT:-$here}
sh "$here/gen-conf5.sh" "$bin" >"$out/lorebot.conf.5"
pages | while read -r cmd see; do
	# shellcheck disable=SC2086
	"$bin" "$cmd" --help | python3 "$here/help2roff.py" "$cmd" 1 $see \
		>"$out/lorebot-$cmd.1"
done

# the pages written by hand: only their option lists, from the tables
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
into() {
	python3 "$here/help2roff.py" --into "$here/$1" >"$tmp"
	cat "$tmp" >"$out/$1"
}
"$bin" check --help | into lorebot-check.1
# lorebot-daemon(8): its Markdown source, then its option list
python3 "$here/md2man.py" "$here/lorebot-daemon.8.md" >"$tmp"
"$bin" daemon --help | python3 "$here/help2roff.py" --into "$tmp" >"$out/lorebot-daemon.8"
# lorebot(1): the global options 'lorebot help' lists
"$bin" help | sed -n '/^global options/,/^$/p' | sed '1s/.*/OPTIONS/' | into lorebot.1

# the key list of the configuration's technical page, from the key table
mkdir -p "$out/technical"
"$bin" config --list-keys |
	python3 "$here/gen-conf-md.py" "$here/technical/configuration.md" >"$tmp"
cat "$tmp" >"$out/technical/configuration.md"

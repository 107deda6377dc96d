#!/bin/sh
# The man pages in doc/ do not drift from the code: every command of the
# command table is in lorebot(1), lorebot.conf(5) and the key list of
# doc/technical/configuration.md are the key table, the option lists of
# every page are the option tables (doc/gen-man.sh makes them), every
# option a command page names is one the command knows, every page
# renders without a groff warning, every doc/ path the tree names exists.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

DOC=$LOREBOT_SRC/doc

# roff source to plain words: "\-\-fix" -> "--fix", "\&." -> "."
unroff() {
	sed -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\f[BIRP]//g' -e 's/\\e/\\/g' "$@"
}

# the words of $1 that are not a line of $2
absent() {
	_absent=
	for _w in $1; do
		printf '%s\n' "$2" | grep -qxF -- "$_w" || _absent="$_absent $_w"
	done
	printf '%s' "$_absent"
}

# -- the command table against lorebot(1)
cmds=$(lorebot help | awk '/^commands:/{f=1;next} f && /^   [a-z]/{print $1}')
like "$cmds" "^check$" "lorebot help lists the command table"
# the commands lorebot(1) describes: a .TP entry of its COMMANDS section
documented=$(unroff "$DOC/lorebot.1" | awk '
	/^\.SH/ { f = ($2 == "COMMANDS") ; next }
	f && prev == ".TP" && /^\.BR? / { print $2 }
	{ prev = $0 }')
is "$(absent "$cmds" "$documented")" "" \
	"every command of the command table is in lorebot(1)"
is "$(absent "$documented" "$cmds")" "" \
	"lorebot(1) names no command the table does not have"

# -- every page another page points at, and every command page's options
refs=$(cat "$DOC"/*.[1-8] | unroff | grep -o 'lorebot[-.a-z]*([1-8])' | sort -u)
missing=
for r in $refs; do
	f=$(printf '%s' "$r" | sed 's/(\(.\))$/.\1/')
	[ -f "$DOC/$f" ] || missing="$missing $r"
done
is "$missing" "" "every lorebot page a page refers to is in doc/"

for page in "$DOC"/lorebot-*.[18]; do
	c=$(basename "$page" | sed 's/^lorebot-//; s/\.[18]$//')
	help=$(lorebot "$c" --help 2>/dev/null) || help=
	if [ -z "$help" ]; then
		_result 1 "$(basename "$page") is the page of a command"
		continue
	fi
	unknown=
	# the options of its SYNOPSIS and OPTIONS (not other commands')
	for o in $(unroff "$page" | awk '/^\.SH/ { f = ($2 ~ /^(SYNOPSIS|OPTIONS)$/); next } f' |
		   grep -oE -- '(^|[^-a-z])--[a-z][-a-z0-9]*' | sed 's/^[^-]*//' | sort -u); do
		printf '%s\n' "$help" | grep -q -- "$o\\b" || unknown="$unknown $o"
	done
	is "$unknown" "" "every option in $(basename "$page") is in 'lorebot $c --help'"
done

# -- lorebot.conf(5) against the key table
lorebot config --list-keys >"$TMP/keys"
# the generated pages are what doc/gen-man.sh makes of the key table and
# of the commands' --help: the help text and the page say the same
mkdir -p "$TMP/gen"
ok "doc/gen-man.sh runs" env OUT="$TMP/gen" sh "$DOC/gen-man.sh" "$LOREBOT"
for f in "$TMP"/gen/*.[1-8] "$TMP"/gen/technical/*; do
	f=${f#"$TMP/gen/"}
	ok "doc/$f is what doc/gen-man.sh makes of the code" cmp "$TMP/gen/$f" "$DOC/$f"
done
# the pages written by hand take their option lists from the tables too
mark='.\" OPTIONS: generated from the option table by doc/gen-man.sh'
for f in lorebot.1 lorebot-check.1 lorebot-daemon.8; do
	ok "doc/$f has its option list generated" grep -qxF "$mark" "$DOC/$f"
done
is "$(ls "$TMP/gen/technical")" "configuration.md" \
	"doc/technical/configuration.md's key list is generated"

keys=$(awk '/^[^\t]/ {print $1}' "$TMP/keys")
paged=$(unroff "$DOC/lorebot.conf.5" | awk '$1 == ".BR" && $2 ~ /\./ {print $2}')
is "$(absent "$keys" "$paged")" "" \
	"every key of bot/conf/config-keys.c is in lorebot.conf(5)"
is "$(absent "$paged" "$keys")" "" \
	"lorebot.conf(5) documents no key the table does not have"

# -- lorebot-daemon(8) is written once, in Markdown (doc/lorebot-daemon.8.md):
# doc/md2man.py reads a strict subset and names the line of anything else
# (each case is line 7 of a page of its own; one run checks them all; what
# it makes of the subset is the page doc/gen-man.sh made above)
md_case() {
	printf '# lorebot-x(8)\n\n## NAME\n\nlorebot-x - a page\n\n%s\n' "$2" >"$TMP/md/$1.8.md"
}
mkdir -p "$TMP/md"
n=10
for bad in 'a [link](http://127.0.0.1/)' '| a | table |' 'see <b>this</b>' \
	   '1. numbered' '  - nested' 'a back\slash' '> quote' 'an _emphasis_' \
	   'a `span' '```' "$(printf 'a\ttab')" "$(printf 'caf\303\251')" '## Lower case'; do
	n=$((n + 1))
	md_case "bad$n" "$bad"
done
st=0
errs=$(python3 "$DOC/md2man.py" --check "$TMP"/md/bad*.8.md 2>&1) || st=$?
is "$st" 1 "doc/md2man.py --check fails on pages outside the subset"
for f in "$TMP"/md/bad*.8.md; do
	like "$errs" "^$f:7: " \
		"doc/md2man.py refuses, naming the line: $(sed -n 7p "$f" | tr -c -d ' -~')"
done
# what the daemon does is its manual; doc/technical/daemon.md is how the
# code does it, and names none of the keys the manual describes
awk '/^[^\t]/ && !/\*/ {print "`" $1 "`"}' "$TMP/keys" >"$TMP/key-spans"
is "$(grep -oF -f "$TMP/key-spans" "$DOC/technical/daemon.md")" "" \
	"doc/technical/daemon.md leaves the keys to lorebot-daemon(8)"

# -- every page has the NAME line whatis(1) reads (mandb's lexgrog)
if command -v lexgrog >/dev/null 2>&1; then
	is "$(lexgrog "$DOC"/*.[1-8] 2>&1 | grep -v ': "[^"]* - [^"]*"$')" "" \
		"lexgrog reads the NAME line of every page"
else
	skip "lexgrog is not installed (ci/deps.sh installs man-db)"
fi

# -- every page renders without a warning
if command -v groff >/dev/null 2>&1; then
	for page in "$DOC"/*.[1-8]; do
		out=$(groff -man -ww -z "$page" 2>&1)
		is "$out" "" "groff -man -ww: $(basename "$page") renders without warnings"
	done
else
	skip "groff is not installed (ci/deps.sh installs groff-base)"
fi
if command -v man >/dev/null 2>&1; then
	for page in "$DOC"/*.[1-8]; do
		out=$(MANWIDTH=80 man -l -Tutf8 "$page" 2>&1 >/dev/null)
		is "$out" "" "man -l: $(basename "$page") renders without warnings"
	done
else
	skip "man is not installed (ci/deps.sh installs man-db)"
fi

# -- every doc/ path the tree names exists (not /usr/share/doc/...)
named=$(cd "$LOREBOT_SRC" && git ls-files 2>/dev/null | grep -v '^doc/' |
	grep -vE '^tests/fixtures/|\.(mbox|eml|patch|json)$' |
	xargs grep -ohE '(^|[^-_a-zA-Z0-9/.])doc/[A-Za-z0-9][-A-Za-z0-9_./]*[A-Za-z0-9]' 2>/dev/null |
	sed 's/^[^d]*//' | sort -u)
missing=
for p in $named; do
	[ -e "$LOREBOT_SRC/$p" ] || missing="$missing $p"
done
is "$missing" "" "every doc/ path named in the tree exists"

done_testing

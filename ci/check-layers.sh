#!/bin/sh
# Check that the layers of the tree point one way only.  From the top:
#
#	cmd/		the front ends (command table, cmd-*.c, the daemon)
#	ci/		kernel builds and boots, the engines of lorebot check
#	checkers/	the checker framework and its rules
#	bot/		the domain, its subsystems ranked among themselves
#			(doc/technical/subsystems.md: base/ ... sched/)
#	lib/		the generic toolkit (strbuf, util, log, run, ...)
#
# A file may include the headers of its own layer and of those below,
# and use the symbols of its own layer and of those below, never of one
# above.  And the front ends declare their options as tables of
# lib/parse-options.h: nothing in cmd/ uses getopt.  Two checks:
#   - includes: every '#include "dir/file.h"' of every .c and .h file,
#     and '#include <getopt.h>' in cmd/;
#   - symbols: from the objects (nm), which file defines each symbol
#     another file uses; the object of a lower layer must not use a
#     symbol that a higher layer defines, nor one of cmd/ getopt(),
#     getopt_long() or getopt_long_only().  Skipped when OBJDIR has no
#     objects (make check-layers builds them first).
# Each violation is a line "file: uses X from Y"; the exit status is 0
# when there is none, 1 when there is one, 2 on a usage error.
#
# Usage: ci/check-layers.sh [SRCDIR [OBJDIR]]
#   SRCDIR  the source tree (default: the one holding this script)
#   OBJDIR  its build directory (default: SRCDIR/build); make check-layers
#           passes the one it builds (build/, build-san/ with SAN=1)
set -eu

NAME=check-layers
# shellcheck source=ci/check-args.sh
. "$(dirname "$0")/check-args.sh"

# the layer's rank, from the path's first directory: lib 0 ... cmd 4
# (shared by both awk programs)
rank='
function layer(path,   d) {
	d = path
	sub(/\/.*/, "", d)
	return d
}
# the directory a message names: the layer, or bot/ and its subsystem
function where(path,   d) {
	d = layer(path)
	if (d == "bot" && path ~ /^bot\/[^\/]+\//) {
		d = path
		sub(/^bot\//, "", d)
		sub(/\/.*/, "", d)
		d = "bot/" d
	}
	return d
}
function rank(path,   d, s, i, n, subs) {
	d = layer(path)
	if (d == "lib") return 0
	if (d == "bot") {
		# bot/ subsystems, bottom to top (doc/technical/subsystems.md)
		n = split("base mail git results conf lore apply series store fetch " \
			  "report stage export web sched", subs, " ")
		s = path
		sub(/^bot\//, "", s)
		sub(/\/.*/, "", s)
		for (i = 1; i <= n; i++)
			if (subs[i] == s)
				return 1 + i / 100
		return 1
	}
	if (d == "checkers") return 2
	if (d == "ci") return 3
	if (d == "cmd") return 4
	return -1
}'

out=$(mktemp)
trap 'rm -f "$out"' EXIT

# -- includes: "file:line:#include "dir/x.h"" lines
# shellcheck disable=SC2086
find $LAYERS -name '*.[ch]' | LC_ALL=C sort |
	xargs grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null |
	awk "$rank"'
	{
		file = $0; sub(/:.*/, "", file)
		line = $0; sub(/^[^:]*:/, "", line); sub(/:.*/, "", line)
		hdr = $0; sub(/^[^"]*"/, "", hdr); sub(/".*/, "", hdr)
		if (rank(hdr) > rank(file))
			printf "%s:%s: uses %s from %s/ (above %s/)\n", file, line, \
				hdr, where(hdr), where(file)
	}' >>"$out"
# shellcheck disable=SC2086
find cmd -name '*.[ch]' | LC_ALL=C sort |
	xargs grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<getopt\.h>' /dev/null |
	awk -F: '{ printf "%s:%s: uses <getopt.h>, not lib/parse-options.h\n", $1, $2 }' >>"$out"

# -- symbols: who defines what another object uses
objs=
for l in $LAYERS; do
	[ -d "$obj/$l" ] && objs="$objs $(find "$obj/$l" -name '*.o' | LC_ALL=C sort)"
done
if [ -n "$objs" ]; then
	# "path/to/obj/dir/x.o: name type value size" (nm -P -A)
	# shellcheck disable=SC2086
	nm -P -A $objs | awk -v obj="$obj/" "$rank"'
	{
		o = $1; sub(/:$/, "", o)
		if (index(o, obj) == 1)
			o = substr(o, length(obj) + 1)
		sub(/\.o$/, ".c", o)
		name = $2; type = $3
		if (type == "U") {
			n = ++nuse[o]; use[o, n] = name
			files[o] = 1
			if (layer(o) == "cmd" && name ~ /^getopt(_long(_only)?)?$/)
				printf "%s: uses %s, not lib/parse-options.h\n", o, name
		} else if (type ~ /^[A-TV-Z]$/) {
			def[name] = o
		}
	}
	END {
		for (f in files)
			for (i = 1; i <= nuse[f]; i++) {
				s = use[f, i]
				if ((s in def) && rank(def[s]) > rank(f))
					printf "%s: uses %s from %s\n", f, s, def[s]
			}
	}' | LC_ALL=C sort >>"$out"
else
	echo "check-layers: no objects in '$obj', the symbols are not checked" >&2
fi

if [ -s "$out" ]; then
	cat "$out"
	echo "check-layers: includes and uses must point down:" \
		"cmd -> ci -> checkers -> bot -> lib;" \
		"cmd/ declares its options as lib/parse-options.h tables, no getopt" >&2
	exit 1
fi
exit 0

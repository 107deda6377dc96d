#!/bin/sh
# Check that every exported function is named after its file, so that a
# name says where it is defined and each prefix means one module.  The
# prefix of a file is its base name up to the first '-', then '_':
# bot/report/report-body.c -> report_, lib/strbuf.c -> strbuf_, ci/kbuild-make.c
# -> kbuild_.  The exceptions are two short tables below:
#   - modules: a file whose module has another prefix (a module of files
#     with other names, documented in one header; a short prefix);
#   - conventions: names that are deliberately not prefixed.
# The functions are read from the objects (nm): a global text symbol of
# OBJDIR/{lib,bot,checkers,ci,cmd}/*.o; static functions do not count.
# Each offender is a line "file: name"; and as a prefix must mean one
# module, a file with the prefix of a file in another directory is a
# line "file: prefix foo_ of dir/foo.c".  Then their count on stderr.  The
# exit status is 0 when there is none, 1 when there is one, 2 on a usage
# error or when there are no objects (make check-prefixes builds them).
#
# Usage: ci/check-prefixes.sh [SRCDIR [OBJDIR]]
#   SRCDIR  the source tree (default: the one holding this script)
#   OBJDIR  its build directory (default: SRCDIR/build); make check-prefixes
#           passes the one it builds (build/, build-san/ with SAN=1)
set -eu

NAME=check-prefixes
# shellcheck source=ci/check-args.sh
. "$(dirname "$0")/check-args.sh"

# Modules: "file prefix", for a file whose functions take a prefix
# other than its name's.
MODULES='
cmd/main.c	cmd_
checkers/cscan.c	cview_
checkers/cparse.c	cview_
checkers/guards.c	cview_
lib/jsonw.c	jw_
lib/jsonx.c	jx_
'
# cmd/main.c: the command table and the front ends' shared helpers,
#	cmd/cmd.h, beside cmd/cmd-<name>.c (cmd_<name>()).
# checkers/cscan.c, cparse.c, guards.c: one module, the C view of a
#	file (struct cview, checkers/cscan.h): the lexer and token scans,
#	the parser, the guards of a branch.
# lib/jsonw.c, lib/jsonx.c: the JSON writer and json-c wrappers have
#	the short prefixes jw_ and jx_ at their many call sites
#	(HACKING.md names them).

# Conventions: "file name", a name that is not prefixed, or "file
# prefix*" for a family of them.
CONVENTIONS='
cmd/main.c	main
lib/util.c	x*
lib/util.c	oom
'
# main: the program's entry point (cmd/main.c).
# lib/util.c x*: the allocators that cannot fail, as git's: xmalloc(),
#	xcalloc(), xrealloc(), xstrdup(), xstrndup(), xstrdup_or_null(),
#	xasprintf(); oom(): their one way out when memory runs out.

# bottom up: of two directories with a prefix, the higher one is named
objs=
for l in lib bot checkers ci cmd; do
	[ -d "$obj/$l" ] && objs="$objs $(find "$obj/$l" -name '*.o' | LC_ALL=C sort)"
done
if [ -z "$objs" ]; then
	echo "check-prefixes: no objects in '$obj' (make check-prefixes builds them)" >&2
	exit 2
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT

# "path/to/obj/dir/x.o: name type value size" (nm -P -A); T is a global
# function (W a weak one)
# shellcheck disable=SC2086
nm -P -A $objs | awk -v obj="$obj/" -v modules="$MODULES" \
	-v conventions="$CONVENTIONS" '
	BEGIN {
		n = split(modules, l, "\n")
		for (i = 1; i <= n; i++)
			if (split(l[i], f, "\t") == 2)
				module[f[1]] = f[2]
		n = split(conventions, l, "\n")
		for (i = 1; i <= n; i++)
			if (split(l[i], f, "\t") == 2)
				conv[++nconv] = f[1] SUBSEP f[2]
	}
	function allowed(file, name,   i, c, p) {
		for (i = 1; i <= nconv; i++) {
			split(conv[i], c, SUBSEP)
			if (c[1] != file)
				continue
			p = c[2]
			if (p ~ /\*$/) {
				sub(/\*$/, "", p)
				if (index(name, p) == 1)
					return 1
			} else if (name == p) {
				return 1
			}
		}
		return 0
	}
	function prefix(file,   p) {
		if (file in module)
			return module[file]
		p = file
		sub(/.*\//, "", p)
		sub(/\.c$/, "", p)
		sub(/-.*/, "", p)
		return p "_"
	}
	{
		o = $1; sub(/:$/, "", o)
		if (index(o, obj) == 1)
			o = substr(o, length(obj) + 1)
		sub(/\.o$/, ".c", o)
		p = prefix(o)
		# the first file of another directory with the prefix
		d = o; sub(/\/[^\/]*$/, "", d)
		if (!((p, d) in first)) {
			first[p, d] = o
			if (p in owner && !(o in shared)) {
				shared[o] = 1
				printf "%s: prefix %s of %s\n", o, p, owner[p]
			}
			if (!(p in owner))
				owner[p] = o
		}
	}
	$3 == "T" || $3 == "W" {
		name = $2
		if (index(name, p) != 1 && !allowed(o, name))
			printf "%s: %s\n", o, name
	}' | LC_ALL=C sort >"$out"

if [ -s "$out" ]; then
	cat "$out"
	echo "check-prefixes: $(grep -c '' "$out") exported functions not" \
		"named after their file (file bot/foo-bar.c, prefix foo_;" \
		"the exceptions are in ci/check-prefixes.sh), or files with" \
		"the prefix of another directory's" >&2
	exit 1
fi
exit 0

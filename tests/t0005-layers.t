#!/bin/sh
# make check-layers (ci/check-layers.sh): includes and symbol uses point
# down only, cmd -> ci -> checkers -> bot -> lib.  The tree passes, and a
# copy of it with an upward include or an object using a higher layer's
# symbol fails, each named as "file: uses X from Y".  So does a front end
# that reads its options with getopt, not a lib/parse-options.h table.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

CHECK=$LOREBOT_SRC/ci/check-layers.sh
LAYERS="cmd ci checkers bot lib"
# the objects of the binary under test (build-san/ in make test)
OBJ=$(dirname "$LOREBOT")

# -- the tree as it is
"$CHECK" "$LOREBOT_SRC" "$OBJ" >"$TMP/out" 2>"$TMP/err"
is "$?" 0 "the tree: exit 0"
is "$(cat "$TMP/out")" "" "the tree: no upward include or use"
if [ -n "$(find "$OBJ/lib" -name '*.o' 2>/dev/null | head -n 1)" ]; then
	is "$(cat "$TMP/err")" "" "the tree: the symbols were checked too"
else
	diag "no objects beside $LOREBOT: its symbols are not checked"
fi

# -- a copy with an upward include: lib/ including cmd/, bot/ including ci/
S=$TMP/src
mkdir -p "$S"
for l in $LAYERS; do
	cp -R "$LOREBOT_SRC/$l" "$S/$l"
done
"$CHECK" "$S" "$TMP/none" >"$TMP/out" 2>/dev/null
is "$?" 0 "the copy as it is: exit 0"
U=$S/lib/util.c
{ head -n 1 "$U"; echo '#include "cmd/cmd.h"'; tail -n +2 "$U"; } >"$TMP/util.c"
cp "$TMP/util.c" "$U"
printf '#include "ci/kbuild.h"\n' >>"$S/bot/base/arch.h"
# bot/'s subsystems rank among themselves: the store below the scheduler
printf '#include "bot/sched/job.h"\n' >>"$S/bot/store/store.h"
m=$(grep -c '' "$S/bot/store/store.h")
# a header of its own layer and one below are fine
printf '#include "checkers/check.h"\n#include "bot/git/git.h"\n' >>"$S/checkers/tree.h"
n=$(grep -c '' "$S/bot/base/arch.h")
"$CHECK" "$S" "$TMP/none" >"$TMP/out" 2>"$TMP/err"
is "$?" 1 "an upward include: exit 1"
is "$(cat "$TMP/out")" "bot/base/arch.h:$n: uses ci/kbuild.h from ci/ (above bot/base/)
bot/store/store.h:$m: uses bot/sched/job.h from bot/sched/ (above bot/store/)
lib/util.c:2: uses cmd/cmd.h from cmd/ (above lib/)" \
	"each upward include named, with its line"
like "$(cat "$TMP/err")" "cmd -> ci -> checkers -> bot -> lib" "and the rule on stderr"

# -- a front end including <getopt.h>: options are parse-options tables
printf '#include <getopt.h>\n' >>"$S/cmd/cmd-series.c"
n=$(grep -c '' "$S/cmd/cmd-series.c")
"$CHECK" "$S" "$TMP/none" >"$TMP/out" 2>"$TMP/err"
is "$?" 1 "cmd/ including <getopt.h>: exit 1"
like "$(cat "$TMP/out")" "^cmd/cmd-series.c:$n: uses <getopt.h>, not lib/parse-options.h$" \
	"the front end named, with its line"
like "$(cat "$TMP/err")" "lib/parse-options.h tables, no getopt" "and the rule on stderr"
printf '#include <getopt.h>\n' >>"$S/lib/util.c"
"$CHECK" "$S" "$TMP/none" >"$TMP/out" 2>/dev/null
unlike "$(cat "$TMP/out")" "^lib/util.c:.*getopt" "below cmd/, <getopt.h> is not a front end's"

# -- an object of lib/ calling a function of cmd/ (the objects of the
# tree, plus one planted object; the real build directory is not touched)
if [ -z "$(find "$OBJ/cmd" -name '*.o' 2>/dev/null | head -n 1)" ]; then
	skip "no objects beside $LOREBOT"
elif ! command -v cc >/dev/null 2>&1; then
	skip "no cc to build a planted object"
else
	O=$TMP/obj
	link_objects "$OBJ" "$O"
	"$CHECK" "$LOREBOT_SRC" "$O" >"$TMP/out" 2>&1
	is "$?" 0 "the tree's objects through links: exit 0"
	printf 'const void *cmd_lookup(const char *name);\n%s\n' \
		'const void *planted(void) { return cmd_lookup("check"); }' >"$TMP/planted.c"
	cc -c -o "$O/lib/planted.o" "$TMP/planted.c"
	printf 'int planted_helper(void);\nint planted_helper(void) { return 1; }\n' >"$TMP/helper.c"
	cc -c -o "$O/ci/helper.o" "$TMP/helper.c"
	printf 'int planted_helper(void);\nint use(void);\n%s\n' \
		'int use(void) { return planted_helper(); }' >"$TMP/use.c"
	cc -c -o "$O/checkers/use.o" "$TMP/use.c"
	# and a front end calling getopt_long(), whatever it included
	printf 'int getopt_long(int, char *const *, const char *, const void *, int *);\n%s\n' \
		'int opts(int c, char **v) { return getopt_long(c, v, "", 0, 0); }' >"$TMP/opts.c"
	cc -c -o "$O/cmd/opts.o" "$TMP/opts.c"
	"$CHECK" "$LOREBOT_SRC" "$O" >"$TMP/out" 2>/dev/null
	is "$?" 1 "an upward call: exit 1"
	is "$(cat "$TMP/out")" "checkers/use.c: uses planted_helper from ci/helper.c
cmd/opts.c: uses getopt_long, not lib/parse-options.h
lib/planted.c: uses cmd_lookup from cmd/main.c" \
		"each upward use named with the file defining the symbol, getopt with its caller"
fi

# -- usage
"$CHECK" --frobnicate >/dev/null 2>"$TMP/err"
is "$?" 2 "an unknown option: exit 2"
"$CHECK" "$TMP/nowhere" >/dev/null 2>&1
is "$?" 2 "a directory that is not a tree: exit 2"

done_testing

#!/bin/sh
# make check-prefixes (ci/check-prefixes.sh): every exported function of
# the objects is named after its file (the base name up to the first
# '-', then '_'), but for the module prefixes and conventions the script
# lists, and no two directories share a prefix.  The tree passes;
# objects planted beside it with a function of another prefix fail, each
# named as "file: name", and one of another directory's prefix as
# "file: prefix foo_ of dir/foo.c".
. "${LOREBOT_SRC:-.}/tests/lib.sh"

CHECK=$LOREBOT_SRC/ci/check-prefixes.sh
# the objects of the binary under test (build-san/ in make test)
OBJ=$(dirname "$LOREBOT")

# -- usage
"$CHECK" --frobnicate >/dev/null 2>"$TMP/err"
is "$?" 2 "an unknown option: exit 2"
"$CHECK" "$TMP/nowhere" >/dev/null 2>&1
is "$?" 2 "a directory that is not a tree: exit 2"
"$CHECK" "$LOREBOT_SRC" "$TMP/none" >/dev/null 2>"$TMP/err"
is "$?" 2 "no objects: exit 2"
like "$(cat "$TMP/err")" "no objects in" "and says so"

if [ -z "$(find "$OBJ/lib" -name '*.o' 2>/dev/null | head -n 1)" ]; then
	skip "no objects beside $LOREBOT"
	done_testing
	exit
fi

# -- the tree as it is
"$CHECK" "$LOREBOT_SRC" "$OBJ" >"$TMP/out" 2>"$TMP/err"
is "$?" 0 "the tree: exit 0"
is "$(cat "$TMP/out")" "" "the tree: every exported function named after its file"
is "$(cat "$TMP/err")" "" "the tree: nothing on stderr"

# -- the tree's objects through links, plus planted ones
if ! command -v cc >/dev/null 2>&1; then
	skip "no cc to build a planted object"
	done_testing
	exit
fi
O=$TMP/obj
link_objects "$OBJ" "$O"
"$CHECK" "$LOREBOT_SRC" "$O" >"$TMP/out" 2>&1
is "$?" 0 "the tree's objects through links: exit 0"

# a file's prefix is its name up to the first '-'; statics do not count
printf '%s\n' 'int plant_one(void);' 'int plant_one(void) { return 1; }' \
	'static int two(void) { return 2; }' 'int three(void);' \
	'int three(void) { return two(); }' >"$TMP/plant.c"
cc -c -o "$O/bot/plant-more.o" "$TMP/plant.c"
# a module of another prefix: cmd/main.c is cmd_, not main_
printf '%s\n' 'int cmd_planted(void);' 'int cmd_planted(void) { return 1; }' \
	'int main_planted(void);' 'int main_planted(void) { return 1; }' >"$TMP/main.c"
rm "$O/cmd/main.o"
cc -c -o "$O/cmd/main.o" "$TMP/main.c"
# a prefix means one module: ci/ has no log_ of its own (lib/log.c's)
printf '%s\n' 'int log_planted(void);' 'int log_planted(void) { return 1; }' >"$TMP/log.c"
cc -c -o "$O/ci/log-planted.o" "$TMP/log.c"
# a convention: x* in lib/util.c only
printf '%s\n' 'void *xplanted(void);' 'void *xplanted(void) { return 0; }' >"$TMP/x.c"
cc -c -o "$O/lib/strmap-x.o" "$TMP/x.c"
"$CHECK" "$LOREBOT_SRC" "$O" >"$TMP/out" 2>"$TMP/err"
is "$?" 1 "a function of another prefix: exit 1"
is "$(cat "$TMP/out")" "bot/plant-more.c: three
ci/log-planted.c: prefix log_ of lib/log.c
cmd/main.c: main_planted
lib/strmap-x.c: xplanted" "each named with its file, a shared prefix with the other file"
like "$(cat "$TMP/err")" "^check-prefixes: 4 exported functions" "and counted on stderr"

done_testing

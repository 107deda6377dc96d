#!/bin/sh
# make check-refs (ci/check-refs.py): every lorebot function a header
# comment, HACKING.md, README.md, doc/technical/ or the Markdown source of
# a man page (doc/*.md) names as name() exists, and every file of the tree
# they name.
# The tree passes; a copy of the tree whose header points to a function
# that is gone fails, naming the file, the line and the name; a library's
# function of a lorebot prefix (libgit2's git_*()) is not a stale pointer.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

CHECK=$LOREBOT_SRC/ci/check-refs.py
OBJ=$(dirname "$LOREBOT")
command -v nm >/dev/null || skip_all "no nm"
[ -n "$(find "$OBJ/lib" -name '*.o' 2>/dev/null | head -n 1)" ] ||
	skip_all "no objects beside $LOREBOT"

$PY "$CHECK" "$LOREBOT_SRC" "$TMP/none" >/dev/null 2>"$TMP/err"
is "$?" 2 "no objects: exit 2"

$PY "$CHECK" "$LOREBOT_SRC" "$OBJ" >"$TMP/out" 2>"$TMP/err"
is "$?" 0 "the tree names no function or file that does not exist"
is "$(cat "$TMP/out")" "" "and prints nothing on stdout"

# a copy of the sources (git ls-files reads it) with stale pointers planted
mkdir -p "$TMP/src"
(cd "$LOREBOT_SRC" && git ls-files -z | xargs -0 cp --parents -t "$TMP/src")
git -C "$TMP/src" init -q && git -C "$TMP/src" add -A
cat >>"$TMP/src/lib/strbuf.h" <<'EOT'
/* strbuf_frobnicate() was renamed; git_repository_open() is libgit2's */
/* ci/gone.h went, ci/kbuild* and /var/lib/lorebot are no stale paths */
/* usage: strbuf_vanish(&sb, 1); strbuf_addstr(&sb, "x"); */
EOT
printf '\nSee `store_gone_away()` in bot/store/store.c.\n' >>"$TMP/src/doc/technical/lore.md"
printf '\nSee `store_gone_too()`.\n' >>"$TMP/src/doc/lorebot-daemon.8.md"
$PY "$CHECK" "$TMP/src" "$OBJ" >"$TMP/out" 2>"$TMP/err"
is "$?" 1 "a stale pointer: exit 1"
n=$(($(wc -l <"$TMP/src/lib/strbuf.h") - 2))
like "$(cat "$TMP/out")" "^lib/strbuf.h:$n: strbuf_frobnicate\\(\\) is named here and defined nowhere\$" \
	"the header's, with its line"
like "$(cat "$TMP/out")" "^lib/strbuf.h:$((n + 1)): ci/gone.h is named here and is no file of the tree\$" \
	"a file the header names that is not in the tree"
is "$(grep -c ' ci/kbuild is named\|/var/lib' "$TMP/out")" 0 "the start of some names and a path outside it are not"
like "$(cat "$TMP/out")" "^lib/strbuf.h:$((n + 2)): strbuf_vanish\\(\\) is named here and defined nowhere\$" \
	"a call in an example names a function too"
is "$(grep -c strbuf_addstr "$TMP/out")" 0 "(one that exists is fine)"
like "$(cat "$TMP/out")" "doc/technical/lore.md:[0-9]+: store_gone_away\\(\\)" "the page's"
like "$(cat "$TMP/out")" "doc/lorebot-daemon.8.md:[0-9]+: store_gone_too\\(\\)" \
	"a man page's Markdown source's"
is "$(grep -c git_repository_open "$TMP/out")" 0 "libgit2's git_*() is not lorebot's"
like "$(cat "$TMP/err")" "check-refs: 5 stale" "the count on stderr"
done_testing

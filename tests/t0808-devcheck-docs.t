#!/bin/sh
# The documentation of lorebot check: the man page renders (man -l, no
# groff warnings) and documents every option --help lists; and a
# newcomer following the README's quick start in a fresh clone of lorebot
# gets to a first result (the block is run as written; only the apt-get
# line is replaced by checking that its packages are installed).
# schedule: middle 2.2 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"

MAN=$LOREBOT_SRC/doc/lorebot-check.1
ok "groff finds nothing to warn about" sh -c "groff -man -ww -z '$MAN' 2>&1 | grep . && exit 1 || exit 0"
MANWIDTH=80 man -l "$MAN" >"$TMP/man.txt" 2>"$TMP/man.err"
is "$?" 0 "man -l renders the page"
is "$(cat "$TMP/man.err")" "" "man -l: no complaints"
like "$(head -1 "$TMP/man.txt")" "^LOREBOT-CHECK\(1\) " "the page is lorebot-check(1)"
for s in NAME SYNOPSIS DESCRIPTION OPTIONS OUTPUT CONFIGURATION ENVIRONMENT "EXIT STATUS" EXAMPLES; do
	like "$(cat "$TMP/man.txt")" "^$s$" "section $s"
done
lorebot check --help >"$TMP/help.txt"
opts=$(grep -o -- '--[a-z][a-z-]*' "$TMP/help.txt" | sort -u)
missing=
for o in $opts; do
	grep -q -- "$o" "$TMP/man.txt" || missing="$missing $o"
done
is "$missing" "" "every option of --help is in the man page"
like "$opts" "--apply" "(--help lists --apply)"

# the README's quick start, from a fresh clone
MM=$(mm_repo) || skip_all "no mm tree (ci/mm-tree.sh)"
git clone -q "$LOREBOT_SRC" "$TMP/lorebot" || skip_all "cannot clone lorebot"
awk '/<!-- quickstart:/ { on = 1; next }
     on && /^```sh/ { inside = 1; next }
     inside && /^```/ { exit }
     inside { print }' "$TMP/lorebot/README.md" >"$TMP/quickstart.sh"
like "$(cat "$TMP/quickstart.sh")" "lorebot check" "the README has a quick start"
pkgs=$(sed -n 's/^sudo apt-get install //p' "$TMP/quickstart.sh")
missing=
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
is "$missing" "" "the packages it names are installed (ci/packages.txt has them)"
# the developer's kernel tree: a branch with a series on it
. "$LOREBOT_SRC/tests/lib-devcheck.sh"
dev_clone "$HOME/linux" mm arch/arm64 arch/riscv arch/x86 || skip_all "cannot clone $MM"
git -C "$HOME/linux" checkout -q -b my-series --track origin/mm-new
dev_am "$HOME/linux" "$DEVFIX/004-2-port-6.12.patch"
git -C "$HOME/linux" checkout -q mm-new
# compile through ccache when the machine has one (the cache is per machine)
cache=${LOREBOT_CACHE:-/var/cache/lorebot}
if command -v ccache >/dev/null && mkdir -p "$cache/ccache-lorebot" 2>/dev/null; then
	export CC="ccache gcc" CCACHE_DIR="$cache/ccache-lorebot"
fi
grep -v '^sudo apt-get' "$TMP/quickstart.sh" >"$TMP/steps.sh"
# its make unoptimised (OPT=-O0: about half the compiler's CPU of -O2
# -g, the same program); the -O2 build and its warnings are make test's
# own (build/), this is about the steps in a fresh clone
(cd "$TMP/lorebot" && MAKEFLAGS="-j2 OPT=-O0" sh -e "$TMP/steps.sh") >"$TMP/qs.out" 2>"$TMP/qs.err"
is "$?" 0 "the quick start runs to the end"
like "$(cat "$TMP/qs.out")" "^== origin/mm-new\.\.my-series: 1 patch on" "it checks the branch"
like "$(cat "$TMP/qs.out")" "\[one-line-args\]$" "with the findings"
like "$(cat "$TMP/qs.out")" "^0 errors, 6 warnings, [0-9]+ notes$" "and the summary line"
is "$(readlink "$HOME/.local/bin/lorebot")" "$TMP/lorebot/build/lorebot" "the lorebot it built"
done_testing

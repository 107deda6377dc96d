#!/bin/sh
# lorebot check --build says what it compiled of the developer's change.
# A branch of three commits: tests/fixtures/build/coverage 1-2 (an unused
# variable in mm/damon/core.c, which the small profile does not build
# (CONFIG_DAMON), with lines in include/linux/damon.h; another inside
# #ifdef CONFIG_CACHESTAT_SYSCALL in mm/filemap.c, compiled, the option
# off), and an unused variable in mm/page_io.c, which the small profile
# compiles.  With the config repair (lorebot.build.repair in the
# developer's git configuration): all 7 changed lines compiled, said in
# a note of the series, and each warning found on its patch.  Without
# it: 1 of 7 lines compiled; the check says which were not and why (the
# Makefile line, the #ifdef), as warnings although the build has a new
# warning of its own (patch 3's: warnings come before "partial" in a
# build's status), and finds no warning in code it did not compile.
# The repaired configuration is t0540's (the same two options): on a
# warm cache its base is reused.
# schedule: last 2.5 (three x86_64 check builds on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-devcheck.sh"

L=$TMP/linux
dev_clone "$L" mm include/linux || skip_all "cannot clone $MM"
dev_branch "$L" work
ok "the two patches apply" dev_am "$L" "$FIXTURES/build/coverage/0001-damon.patch" \
	"$FIXTURES/build/coverage/0002-cachestat.patch"
dev_commit "$L" "mm/page_io: an unused variable" mm/page_io.c \
	"s.replace('int swap_writepage(struct page *page, struct writeback_control *wbc)\n{\n', 'int swap_writepage(struct page *page, struct writeback_control *wbc)\n{\n\tint unused_here;\n', 1)"
cd "$L" || exit 1
cov="[f for f in d['findings'] if f['rule'] == 'build:coverage']"
new="sorted((f['patch'], f['file'], f['message']) for f in d['findings'] if f['rule'] == 'build:x86_64')"

git config lorebot.build.repair true
lorebot check --build=x86_64 --json >"$TMP/rep.json" 2>"$TMP/err"
is "$?" 0 "repaired: exit 0 (new warnings: warnings do not fail a check)"
J=$TMP/rep.json
is "$(json $J "[(f['patch'], f['severity']) for f in $cov]")" "[(0, 'note')]" \
	"repaired: the coverage of the series, a note: nothing left uncompiled"
like "$(json $J "$cov[0]['message']")" "^compiled 7 of 7 changed lines \(100%\)" \
	"repaired: 7 of 7 lines compiled"
like "$(json $J "$new")" \
	"^\[\(1, 'mm/damon/core.c', \"unused variable 'sz'.*\(2, 'mm/filemap.c', \"unused variable 'retries'.*\(3, 'mm/page_io.c', \"unused variable 'unused_here'" \
	"repaired: the warning in mm/damon/core.c on patch 1, the one inside the #ifdef on patch 2, patch 3's"
lorebot check --build=x86_64 >"$TMP/rep.txt" 2>&1
like "$(cat "$TMP/rep.txt")" "compiled 7 of 7 changed lines \(100%\)" \
	"repaired, as text: the coverage line is printed"

git config lorebot.build.repair false
lorebot check --build=x86_64 --json >"$TMP/norep.json" 2>"$TMP/err"
is "$?" 0 "not repaired: exit 0 (what was not compiled is a warning)"
J=$TMP/norep.json
like "$(json $J "$cov[0]['message']")" "^compiled 1 of 7 changed lines \(14%\)" \
	"not repaired: 1 of the 7 lines compiled"
is "$(json $J "sorted(set((f['patch'], f['severity']) for f in $cov))")" \
	"[(0, 'warning'), (1, 'warning'), (2, 'warning')]" \
	"not repaired: warnings, the series' and one per patch with uncompiled lines, new warnings or not"
like "$(json $J "' '.join(f['message'] for f in $cov if f['file'] == 'mm/damon/core.c')")" \
	"not compiled on any arch built: x86_64: not built: needs CONFIG_DAMON \(mm/damon/Makefile" \
	"not repaired: mm/damon/core.c, with the Makefile line that decides"
like "$(json $J "' '.join(f['message'] for f in $cov if f['file'] == 'mm/filemap.c')")" \
	"x86_64: inside #ifdef CONFIG_CACHESTAT_SYSCALL" "not repaired: mm/filemap.c, with its #ifdef"
is "$(json $J "[(f['patch'], f['file']) for f in d['findings'] if f['rule'] == 'build:x86_64' and 'unused variable' in f['message'] and '(clang)' not in f['message']]")" \
	"[(3, 'mm/page_io.c')]" "not repaired: only patch 3's unused variable, none in code not compiled"
done_testing

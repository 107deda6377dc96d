#!/bin/sh
# Compile what the series changed.  A three-patch series on x86_64:
#  1/3 mm/damon/core.c (not built by the small profile: CONFIG_DAMON)
#      and include/linux/damon.h, an unused variable;
#  2/3 mm/filemap.c inside #ifdef CONFIG_CACHESTAT_SYSCALL (a compiled
#      file, the option off), an unused variable;
#  3/3 mm/madvise.c inside #ifdef CONFIG_PPC_64S_HASH_MMU (powerpc's:
#      no arch built here can enable it).
# The repair turns on DAMON and CACHESTAT_SYSCALL in a build directory of
# its own, made from a copy of the small profile's base; both warnings
# are found and given to their patches; the powerpc option is reported
# with its reason; every patch's lines compiled are counted.  The same
# options again reuse that directory; without the repair the first patch
# compiles nothing of its change and the verdict is partial, not ok.
# A patch to a header alone (include/linux/balloon_compaction.h, read by
# mm/vmscan.c) has its lines counted through the units that read it.
# schedule: last 1.9 (builds on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" coverage "$FIXTURES/build/coverage"
apply_series "$R" header-only "$FIXTURES/build/header-only"
build_config "$TMP/bot.conf" build.repair true

lorebot --config "$TMP/bot.conf" build --repo "$R" --series coverage --arch x86_64 \
	--log-dir "$TMP/logs" --json >"$TMP/out.json" 2>"$TMP/err"
is "$?" 1 "exit 1 (new warnings)"
J=$TMP/out.json
A="d['archs'][0]"
C="$A['coverage']"
is "$(json $J "$A['status']")" warnings "x86_64: warnings"
is "$(json $J "$C['repair']['used']")" True "the configuration was repaired"
is "$(json $J "$C['repair']['config']")" "['CONFIG_CACHESTAT_SYSCALL=y', 'CONFIG_DAMON=y']" \
	"with the two options the changed lines need"
like "$(json $J "$A['build_dir']")" "/builds/x86_64/small-[0-9a-f]{12}-[0-9a-f]{8}$" \
	"in a build directory of that configuration"
# made by this run: a copy of the small profile's base; on a warm cache an
# earlier run made it and it is reused (the cold cache of CI takes the first)
if [ "$(json $J "$A['base']['reused']")" = True ]; then
	ok "its base, made by an earlier run, is reused" test "$(json $J "$C['repair']['seeded']")" = False
else
	ok "its base was a copy of the small profile's" test "$(json $J "$C['repair']['seeded']")" = True
fi
# the two warnings, each found and given to its patch
new="sorted((f['patch'], f['file'], f['option'], f['message']) for f in $A['findings'] if f['new'])"
is "$(json $J "$new")" \
	"[(1, 'mm/damon/core.c', '-Wunused-variable', \"unused variable 'sz'\"), (2, 'mm/filemap.c', '-Wunused-variable', \"unused variable 'retries'\")]" \
	"the warning in mm/damon/core.c (patch 1) and inside #ifdef CONFIG_CACHESTAT_SYSCALL (patch 2)"
# the option no arch here can enable: reported, with why
is "$(json $J "[(f['symbol'], f['arch']) for f in $C['repair']['failed']]")" \
	"[('CONFIG_PPC_64S_HASH_MMU', True)]" "CONFIG_PPC_64S_HASH_MMU could not be enabled"
like "$(json $J "$C['repair']['failed'][0]['reason']")" "declared for powerpc only" \
	"because only powerpc declares it"
is "$(json $J "[(u['patch'], u['file'], u['spans'], u['arch']) for u in $C['uncompiled']]")" \
	"[(3, 'mm/madvise.c', '42', True)]" "its line is the one not compiled, another arch's"
like "$(json $J "$C['uncompiled'][0]['reason']")" \
	"inside #ifdef CONFIG_PPC_64S_HASH_MMU: needs CONFIG_PPC_64S_HASH_MMU; CONFIG_PPC_64S_HASH_MMU cannot be enabled on x86_64" \
	"the reason names the #ifdef and the option"
# the figures: per patch and file, the arch, the series
is "$(json $J "[(p['n'], [(f['file'], f['changed'], f['compiled']) for f in p['coverage']['files']]) for p in $A['patches']]")" \
	"[(1, [('include/linux/damon.h', 4, 4), ('mm/damon/core.c', 1, 1)]), (2, [('mm/filemap.c', 1, 1)]), (3, [('mm/madvise.c', 1, 0)])]" \
	"per patch and file: lines compiled of those changed (the header's through core.o)"
is "$(json $J "($C['changed'], $C['compiled'], $C['other_arch'], $C['percent'])")" \
	"(7, 6, 1, 100.0)" "x86_64: 6 of its 6 lines compiled, 1 line powerpc's"
is "$(json $J "(d['coverage']['changed'], d['coverage']['compiled'])")" "(7, 6)" \
	"the series: 6 of 7 compiled on at least one arch"
like "$(json $J "d['coverage']['text']")" \
	"^compiled 6 of 7 changed lines \(85%\) on at least one arch; not compiled: mm/madvise.c:42 \(inside #ifdef CONFIG_PPC_64S_HASH_MMU" \
	"the line for people"
ok "the .config served is the repaired one" grep -q "^CONFIG_DAMON=y" "$(json $J "$A['config_file']")"
cp "$J" "$TMP/first.json"

# the same options again: the repaired base is reused, not made again
lorebot --config "$TMP/bot.conf" build --repo "$R" --range mm-new..coverage~1 --arch x86_64 \
	--log-dir "$TMP/logs2" --json >"$TMP/again.json" 2>"$TMP/err2"
is "$?" 1 "two patches again: exit 1"
J=$TMP/again.json
is "$(json $J "($C['repair']['used'], $C['repair']['seeded'], $A['base']['reused'])")" \
	"(True, False, True)" "the repaired configuration's base is reused"
is "$(json $J "$A['build_dir']")" "$(json "$TMP/first.json" "d['archs'][0]['build_dir']")" \
	"the same build directory"

# without the repair: patch 1 compiles nothing of its change: partial
lorebot --config "$TMP/bot.conf" build --repo "$R" --range mm-new..coverage~2 --arch x86_64 \
	--no-repair --log-dir "$TMP/logs3" --json >"$TMP/norepair.json" 2>"$TMP/err3"
is "$?" 1 "no repair: exit 1 (partial)"
J=$TMP/norepair.json
is "$(json $J "($A['status'], d['status'], $C['compiled'], $C['changed'])")" \
	"('partial', 'partial', 0, 5)" "nothing new found, 0 of 5 lines compiled: partial, not ok"
like "$(json $J "$C['uncompiled'][0]['reason']")" \
	"^(not built: needs CONFIG_DAMON|no unit built for x86_64 includes it)" \
	"why: the Makefile line, or no unit reads the header"
# the same build as text (kept in its log directory, as printed without --json)
like "$(cat "$TMP/logs3/result.txt")" "x86_64: partial" "text: the arch is partial"
like "$(cat "$TMP/logs3/result.txt")" "not compiled: mm/damon/core.c:143 \[patch 1/1\]: not built: needs CONFIG_DAMON \(mm/damon/Makefile:[0-9]+: obj-y, mm/Makefile:[0-9]+: obj-\\\$\(CONFIG_DAMON\)" \
	"text: the line, the patch, the Makefile line that decides"

# a header alone: its lines are compiled by the units that read it
# (mm/vmscan.c here), found through their dependencies, which ccache
# writes relative to obj/ ("../src/include/...")
lorebot --config "$TMP/bot.conf" build --repo "$R" --series header-only --arch x86_64 \
	--no-repair --log-dir "$TMP/logs5" --json >"$TMP/header.json" 2>"$TMP/err5"
J=$TMP/header.json
is "$(json $J "($C['changed'], $C['compiled'])")" "(2, 1)" \
	"a header-only patch: 1 of its 2 lines compiled"
is "$(json $J "[(u['file'], u['spans'], u['reason']) for u in $C['uncompiled']]")" \
	"[('include/linux/balloon_compaction.h', '111', 'inside #ifdef CONFIG_BALLOON_COMPACTION: needs CONFIG_BALLOON_COMPACTION')]" \
	"the other is inside #ifdef CONFIG_BALLOON_COMPACTION, not in a header no unit reads"

done_testing

#!/bin/sh
# Acceptance of lorebot check --build: a developer's branch with 004 1/4
# and a port of 2/4 that forgets riscv (arch_tlbbatch_add_pending() keeps
# its one address there, mm/rmap.c calls it with a range) gets the riscv
# build error on patch 2 - not on patch 1, which builds - next to the
# checkers' findings; the branch with the whole port builds on riscv.
# Every patch is built on its own, in the engine's own source tree: the
# developer's work tree, index and HEAD stay as they are.  The clone is
# sparse (mm and the arches): the engine's tree must still be whole.
# The whole port (both patches, as one commit) builds on riscv.
# lorebot.build.clang = riscv: the touched files are compiled with clang
# too, which fails on patch 2 the same way.
# schedule: last 0.7 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"

command -v riscv64-linux-gnu-gcc >/dev/null || skip_all "no riscv64-linux-gnu-gcc (gcc-riscv64-linux-gnu)"
. "$LOREBOT_SRC/tests/lib-devcheck.sh"

L=$TMP/linux
dev_clone "$L" mm arch/riscv arch/arm64 arch/x86 || skip_all "cannot clone $MM"
dev_branch "$L" noriscv
lore_patch 1/4 >"$TMP/p1.mbox"
ok "004 1/4 applies" dev_am "$L" "$TMP/p1.mbox"
git -C "$L" apply --index --exclude='arch/riscv/*' "$DEVFIX/004-2-port-6.12.patch"
git -C "$L" commit -q -s --author="Barry Song <v-songbaohua@oppo.com>" \
	-m "mm: Support tlbbatch flush for a range of PTEs" \
	-m "The port of 004 2/4 without its riscv part: riscv does not build."
# clang too (build.clang, from the developer's git configuration)
git -C "$L" config lorebot.build.clang riscv
touch "$TMP/marker"
sleep 1
before=$(dev_state "$L")

(cd "$L" && lorebot check --build=riscv --json) >"$TMP/out.json" 2>"$TMP/err"
is "$?" 1 "--build=riscv: exit 1 (an error)"
J=$TMP/out.json
b="[f for f in d['findings'] if f['rule'] == 'build:riscv' and f['severity'] == 'error']"
is "$(json $J "sorted(set(f['patch'] for f in $b))")" "[2]" "the riscv error is on patch 2, and only there"
is "$(json $J "sorted(set(f['file'] for f in $b))")" "['mm/rmap.c']" "in mm/rmap.c"
like "$(json $J "' '.join(f['message'] for f in $b)")" "arch_tlbbatch_add_pending" \
	"about arch_tlbbatch_add_pending()"
is "$(json $J "sorted(set((f['patch'], f['file']) for f in $b if f['message'].endswith(' on riscv (clang)')))")" \
	"[(2, 'mm/rmap.c')]" "clang's error too, on its own line: --build runs build.clang's arches"
is "$(json $J "len([f for f in d['findings'] if f['rule'] == 'one-line-args'])")" 4 \
	"the checkers' findings are there too (riscv's two prototypes were not changed)"
is "$(dev_state "$L")" "$before" "work tree, index, HEAD unchanged"

# the whole port builds on riscv: one commit of both patches (the first
# alone builds there, above), one build of the tree they make
git -C "$L" checkout -q -b withriscv --track origin/mm-new
dev_am "$L" "$TMP/p1.mbox" "$DEVFIX/004-2-port-6.12.patch"
git -C "$L" reset -q --soft HEAD~1
git -C "$L" commit -q --amend --no-edit
is "$(git -C "$L" rev-list --count origin/mm-new..HEAD)" 1 "the whole port is one commit"
(cd "$L" && lorebot check --build=riscv --json) >"$TMP/ok.json" 2>"$TMP/err"
is "$?" 0 "the whole port: exit 0"
is "$(json "$TMP/ok.json" "[f for f in d['findings'] if f['rule'] == 'build:riscv' and f['severity'] == 'error']")" \
	"[]" "the whole port: no riscv error"
done_testing

#!/bin/sh
# lorebot check in a developer's clone of the 6.12 stand-in: a branch
# with the port of thread 004 patch 2/4 gets the six one-line-args
# findings of the review, and the clone is exactly as it was: work tree,
# index, HEAD, refs, stash (a developer in the middle of work: changes
# staged and not, an untracked file, a stash entry).
#
# The clone checks out the directories the series and the work in
# progress touch (a sparse checkout: the whole 6.12 tree is 80,000 files,
# a minute or more to write on a busy CI machine);
# LOREBOT_TEST_FULL_TREE=1 checks the whole tree out.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-devcheck.sh"

L=$TMP/linux
if [ "${LOREBOT_TEST_FULL_TREE:-}" = 1 ]; then
	dev_clone "$L" || skip_all "cannot clone $MM"
else
	dev_clone "$L" mm arch/arm64 arch/riscv arch/x86 include scripts ||
		skip_all "cannot clone $MM"
fi
ok "the developer's branch tracks origin/mm-new" dev_branch "$L" tlbbatch
ok "the port of 004 2/4 applies with git am" dev_am "$L" "$DEVFIX/004-2-port-6.12.patch"

# work in progress: not part of the check, and not to be touched
echo "/* wip */" >>"$L/mm/rmap.c"
echo "/* staged */" >>"$L/mm/vmscan.c"
git -C "$L" add mm/vmscan.c
echo "scratch" >"$L/notes.txt"
echo "/* stashed */" >>"$L/mm/memory.c"
git -C "$L" stash push -q -m "an experiment" -- mm/memory.c
git -C "$L" update-index -q --refresh
touch "$TMP/marker"
sleep 1
before=$(dev_state "$L")

(cd "$L" && lorebot check) >"$TMP/out" 2>"$TMP/err"
is "$?" 0 "lorebot check: exit 0 (warnings only)"
after=$(dev_state "$L")
is "$after" "$before" "work tree, index, HEAD, refs and stash are unchanged"
is "$(cat "$TMP/err")" "" "nothing on stderr"

O=$(cat "$TMP/out")
like "$O" '^== origin/mm-new\.\.tlbbatch: 1 patch on [0-9a-f]{12}$' "says what it checked"
like "$O" '^\[PATCH\] mm: Support tlbbatch flush for a range of PTEs$' \
	"findings grouped under the patch"
is "$(grep -c '\[one-line-args\]$' "$TMP/out")" 6 "six one-line-args findings"
is "$(grep '\[one-line-args\]$' "$TMP/out" | sed 's/: warning: parameters of .\([a-z_]*\)(). take \([0-9]\) lines.*/ \1 \2/')" \
"arch/arm64/include/asm/tlbflush.h:533:1 arch_tlbbatch_add_pending 4
arch/riscv/include/asm/tlbflush.h:63:3 arch_tlbbatch_add_pending 4
arch/riscv/mm/tlbflush.c:193:3 arch_tlbbatch_add_pending 4
arch/x86/include/asm/tlbflush.h:282:3 arch_tlbbatch_add_pending 4
mm/rmap.c:683:3 set_tlb_ubc_flush_pending 3
mm/rmap.c:769:3 set_tlb_ubc_flush_pending 3" \
	"the prototypes of the review (file:line:column): arm64, riscv (declaration and definition), x86, rmap twice"
like "$O" '    \| 		struct mm_struct \*mm, unsigned long start, unsigned long end\);' \
	"the packed prototype is the suggestion"
like "$O" '^0 errors, 6 warnings, [0-9]+ notes$' "a summary line"

# the line numbers are those of the commit, whole files read from it
is "$(git -C "$L" show HEAD:mm/rmap.c | sed -n '683p;769p' | sort -u)" \
	"		unsigned long start," "mm/rmap.c:683 and :769 are the split parameter lines"

# the same as JSON
(cd "$L" && lorebot check --json) >"$TMP/out.json" 2>/dev/null
is "$?" 0 "--json: exit 0"
J=$TMP/out.json
is "$(json $J "d['range']['kind'] + ' ' + d['range']['desc'] + ' ' + str(len(d['range']['commits']))")" \
	"upstream origin/mm-new..tlbbatch 1" "--json: the range"
is "$(json $J "d['series'][0]['patches'][0]['commit'] == d['range']['tip'] and d['series'][0]['patches'][0]['applied']")" \
	True "--json: the patch is its commit, read whole"
is "$(json $J "len([f for f in d['findings'] if f['rule'] == 'one-line-args' and f['severity'] == 'warning' and f['patch'] == 1 and f['suggestion']])")" \
	6 "--json: six one-line-args warnings with suggestions"
is "$(dev_state "$L")" "$before" "still unchanged after --json"
done_testing

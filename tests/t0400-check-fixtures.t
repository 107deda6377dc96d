#!/bin/sh
# lorebot check on the three real linux-mm threads: exactly the findings of
# the reviews for the three mm rules (tests/fixtures/check/expected-mm-rules.txt),
# the output formats, and the exit status.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

L=$FIXTURES/lore
E=$FIXTURES/check/expected-mm-rules.txt
for t in 000_73a05b4700ab1a7a 003_6100bb5053417aef 004_476fa21b8430df59; do
	n=${t%%_*}
	lorebot check --mbox "$L/$t.mbox" --json --checkers=-checkpatch \
		>"$TMP/$n.json" 2>"$TMP/$n.err"
	is "$?" 0 "$n: exit 0 (no errors)"
	got=$(json "$TMP/$n.json" "'\n'.join(sorted('%s %d %s %s:%d %s' % ('$n', f['patch'], f['rule'], f['file'], f['line'], f['severity']) for f in d['findings'] if f['rule'] in ('lazyfree-droppable', 'progress-accounting', 'one-line-args')))")
	want=$(grep "^$n " "$E" | sort)
	is "$got" "$want" "$n: the mm rules report exactly the reviewers' findings"
done

J=$TMP/003.json
is "$(json $J "set(['file', 'line', 'message', 'patch', 'rule', 'severity']) <= set(d['findings'][0].keys())")" \
	True "JSON: rule, severity, patch, file, line, message"
is "$(json $J "all(f['severity'] in ('error', 'warning', 'note') for f in d['findings'])")" True \
	"JSON: severities are error, warning or note"
lf="[f for f in d['findings'] if f['rule'] == 'lazyfree-droppable']"
like "$(json $J "$lf[0]['suggestion']")" '!\(vma->vm_flags & VM_DROPPABLE\)' \
	"003 4/5: the suggestion tests VM_DROPPABLE (David Hildenbrand's form)"
like "$(json $J "$lf[0]['quote']")" 'cc->is_khugepaged && !pte_dirty\(pteval\)' \
	"003 4/5: the finding quotes the condition"
pa="[f for f in d['findings'] if f['rule'] == 'progress-accounting'][0]"
like "$(json $J "$pa['suggestion']")" 'SCAN_PTE_MAPPED_HUGEPAGE' \
	"003 2/5: the suggestion depends on how the scan ended"
like "$(json $J "$pa['quote']")" '\*cur_progress = HPAGE_PMD_NR;' \
	"003 2/5: the finding quotes the full charge"

J=$TMP/004.json
ol="[f for f in d['findings'] if f['rule'] == 'one-line-args' and f['file'] == 'arch/arm64/include/asm/tlbflush.h'][0]"
is "$(json $J "$ol['suggestion']")" "static inline void arch_tlbbatch_add_pending(struct arch_tlbflush_unmap_batch *batch,
		struct mm_struct *mm, unsigned long start, unsigned long end)" \
	"004 2/4: the packed prototype is the suggestion"
ol="[f for f in d['findings'] if f['rule'] == 'one-line-args' and f['file'] == 'mm/rmap.c'][0]"
is "$(json $J "$ol['suggestion']")" "static void set_tlb_ubc_flush_pending(struct mm_struct *mm, pte_t pteval,
		unsigned long start, unsigned long end)" \
	"004 2/4: set_tlb_ubc_flush_pending() packed"
is "$(json $J "[f['rule'] for f in d['findings'] if f['patch'] == 0]")" "['base-commit']" \
	"004: no base-commit (a note)"
is "$(json $J "[f['severity'] for f in d['findings'] if f['rule'] == 'base-commit']")" "['note']" \
	"004: base-commit is a note"

J=$TMP/000.json
is "$(json $J "[(f['patch'], f['line'], f['quote']) for f in d['findings'] if f['rule'] == 'codespell']")" \
	"[(0, 11, 'specifc')]" "000: the cover letter's 'specifc' (line 11)"
like "$(json $J "[f['message'] for f in d['findings'] if f['rule'] == 'codespell'][0]")" "'specific'" \
	"000: codespell suggests 'specific'"

# compiler format, grouped by patch
lorebot check --mbox "$L/004_476fa21b8430df59.mbox" --checkers=-all,one-line-args \
	>"$TMP/004.txt" 2>&1
is "$?" 0 "004: text output exits 0"
like "$(cat "$TMP/004.txt")" \
	'^arch/arm64/include/asm/tlbflush.h:530:1: warning: parameters of .arch_tlbbatch_add_pending\(\). take 4 lines; packed to 80 columns they fit in 2 \[one-line-args\]$' \
	"004: file:line:column: warning: message [rule]"
like "$(cat "$TMP/004.txt")" '^\[PATCH v3 2/4\] mm: Support tlbbatch flush for a range of PTEs$' \
	"004: findings grouped under their patch"
like "$(cat "$TMP/004.txt")" '^0 errors, 6 warnings, 0 notes$' "004: a summary line"

# the column limit is configurable (check.columns)
cat >"$TMP/cols.conf" <<CONF
[check]
	columns = 100
CONF
lorebot --config "$TMP/cols.conf" check --mbox "$L/000_73a05b4700ab1a7a.mbox" --json \
	--checkers=-all,one-line-args >"$TMP/000-100.json"
like "$(json "$TMP/000-100.json" "sorted(set(f['file'] for f in d['findings']))")" "mm/vmscan.c" \
	"check.columns = 100: 000's Bloom filter helpers fit on one line"
is "$(json "$TMP/000-100.json" "sorted(set(f['line'] for f in d['findings']))[:1]")" "[2894]" \
	"check.columns = 100: test_pmd_bloom_filter() is the first"
done_testing

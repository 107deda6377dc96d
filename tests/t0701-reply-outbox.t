#!/bin/sh
# lorebot reply into the outbox: which replies are due, their headers,
# threading against the fixture threads, their body sections, no
# duplicates on a second run, --dry-run
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

L=$FIXTURES/lore
OUT=$TMP/outbox
fill_db
record_all
report_conf

# the file of the reply of KIND about VERSION
mail_of() {
	_id=$(sql "SELECT msgid FROM replies WHERE version = '$2' AND kind = '$1'")
	grep -l "^Message-ID: <$_id>" "$OUT"/new/* 2>/dev/null | head -1
}
summary() {
	$PY "$LOREBOT_SRC/tests/mail-summary.py" "$1" --mbox "$L/000_73a05b4700ab1a7a.mbox" \
		--mbox "$L/003_6100bb5053417aef.mbox" --mbox "$L/004_476fa21b8430df59.mbox"
}

# --dry-run: the mails, nothing recorded
lorebot --config "$CONF" --db "$DB" reply --dry-run >"$TMP/dry.mbox" 2>"$TMP/dry.err"
is "$?" 0 "--dry-run exits 0"
is "$(grep -c '^From .* Thu Jan  1 00:00:00 1970$' "$TMP/dry.mbox")" 3 "--dry-run prints three mails: one per version"
is "$(sql 'SELECT count(*) FROM replies')" 0 "--dry-run records nothing"
ok "--dry-run files nothing" test ! -e "$OUT"

lorebot --config "$CONF" --db "$DB" reply --outbox "$OUT" --json >"$TMP/r1.json" 2>"$TMP/r1.err"
is "$?" 0 "reply --outbox exits 0"
is "$(json "$TMP/r1.json" "(d['composed'], d['sent'], d['failed'])")" "(3, 3, 0)" \
	"three replies composed and filed"
is "$(sql "SELECT version, kind, patch, state, mode FROM replies ORDER BY version, kind" | tr '\n' ' ')" \
	"$V004|apply|0|sent|outbox $V003|check|0|sent|outbox $V000|build|0|sent|outbox " \
	"one per version, its kind the worst it found: 004 apply, 003 check, 000 build"
is "$(ls "$OUT/new" | wc -l | tr -d ' ')" 3 "three files in the maildir's new/"
is "$(ls "$OUT/tmp" | wc -l | tr -d ' ')" 0 "nothing left in tmp/"
is "$(sql "SELECT count(*) FROM replies WHERE version = '$V003OLD'")" 0 \
	"the superseded send of 003 gets no reply"

# headers and threading: the apply failure answers 004's cover letter
F=$(mail_of apply "$V004")
summary "$F" >"$TMP/a.json"
is "$(json "$TMP/a.json" "d['subject']")" \
	"Re: [PATCH v3 0/4] mm: batched unmap lazyfree large folios during reclamation" \
	"apply: Re: the cover letter"
is "$(json "$TMP/a.json" "d['in_reply_to']")" "['$V004']" "apply: In-Reply-To the cover letter"
is "$(json "$TMP/a.json" "(d['thread']['parent_found'], d['thread']['references_ok'])")" \
	"(True, True)" "apply: References is the cover letter's chain, then the cover letter"
is "$(json "$TMP/a.json" "d['to']")" "['21cnbao@gmail.com']" "apply: To the sender of the series"
is "$(json "$TMP/a.json" "d['to_names']")" "['Barry Song']" "apply: with the sender's name"
is "$(json "$TMP/a.json" "sorted(set(d['thread']['parent_to_cc']) - set(d['cc']) - set(d['to']))")" \
	"[]" "apply: Cc everyone the cover letter went to"
is "$(json "$TMP/a.json" "'linux-mm@kvack.org' in d['cc'] and 'v-songbaohua@oppo.com' in d['cc']")" \
	True "apply: the list and the patch's author (another address) are in Cc"
is "$(json "$TMP/a.json" "len(d['cc']) == len(set(x.lower() for x in d['cc'])) and not set(d['to']) & set(d['cc'])")" \
	True "apply: no address twice"
is "$(json "$TMP/a.json" "d['from']")" "lorebot <lorebot@localhost>" "From: the bot"
like "$(json "$TMP/a.json" "d['message_id']")" '^[0-9]{14}\.[a-z0-9]{12}-lorebot@localhost$' \
	"Message-ID: time, random, the bot's domain"
is "$(json "$TMP/a.json" "(d['mime'], d['content_type'], d['charset'], d['cte'])")" \
	"('1.0', 'text/plain', 'utf-8', '8bit')" "MIME-Version, UTF-8, 8bit"
like "$(json "$TMP/a.json" "d['date']")" '^20[0-9]{2}-' "Date parses"
is "$(json "$TMP/a.json" "d['ascii_headers']")" True "headers are ASCII"
is "$(json "$TMP/a.json" "max(len(l) for l in d['raw_header_lines']) <= 78")" True \
	"header lines are folded within 78 columns"
is "$(json "$TMP/a.json" "[h for h in d['header_names'] if h not in ('From', 'To', 'Cc', 'Subject', 'Date', 'Message-ID', 'In-Reply-To', 'References', 'MIME-Version', 'Content-Type', 'Content-Transfer-Encoding', 'Content-Disposition', 'Auto-Submitted', 'X-Lorebot-Outcome')]")" \
	"[]" "no other headers"
json "$TMP/a.json" "d['body']" >"$TMP/a.txt"
like "$(head -1 "$TMP/a.txt")" "^Hi Barry,$" "apply body: greeting"
ok "apply body: the base line" grep -qx \
	"\[lorebot apply FAILED on mm-new 065ab801c937ee62d3105e05a491b7721d8ed990\]" "$TMP/a.txt"
ok "apply body: the --base advice (the series has no base-commit)" \
	grep -q "^git format-patch --base=<commit> records the one you used; if that is$" "$TMP/a.txt"
is "$(grep -ci 'kindly\|drop us a note\|we suggest' "$TMP/a.txt")" 0 \
	"apply body: in lorebot's own words, nothing borrowed from another bot's mails"
ok "apply body: the patch, wrapped as prose" grep -qx \
	'Patch 2/4 ("mm: Support tlbbatch flush for a range of PTEs") does not' "$TMP/a.txt"
ok "apply body: each failing hunk in compiler format" grep -q \
	'^arch/riscv/mm/tlbflush.c:186: error: @@ -186,8 +186,9 @@ bool arch_tlbbatch_should_defer' "$TMP/a.txt"
ok "apply body: the tree's lines, the unexpected ones marked" grep -qP \
	'^>  196\t\tunsigned long start = uaddr & PAGE_MASK;$' "$TMP/a.txt"
ok "apply body: the later patches, in one sentence" grep -qx \
	"Patches 3/4 and 4/4 were not applied after it; none would apply on its" "$TMP/a.txt"
ok "apply body: 004's review findings follow the failure" grep -qx \
	'Review findings, each marked ">>":' "$TMP/a.txt"
ok "apply body: how to reproduce" grep -qx \
	"        lorebot apply --repo linux --mbox $V004.mbx --base 065ab801c937ee62d3105e05a491b7721d8ed990" "$TMP/a.txt"
ok "apply body: the signature" grep -qx -- "-- " "$TMP/a.txt"
ok "apply body: the dashboard link" grep -qx "http://127.0.0.1:8080/series/$S004" "$TMP/a.txt"
is "$(json "$TMP/a.json" "d['long_prose']")" "[]" "apply body: prose within 78 columns"

# the build reply: findings of several patches -> the cover letter
F=$(mail_of build "$V000")
summary "$F" >"$TMP/b.json"
json "$TMP/b.json" "d['body']" >"$TMP/b.txt"
is "$(json "$TMP/b.json" "d['subject']")" \
	"Re: [PATCH 0/9] mm/mglru: suppress empty page table walks during aging" \
	"build: errors in patches 2 and 7: Re: the cover letter"
is "$(json "$TMP/b.json" "(d['in_reply_to'], d['references'], d['thread']['references_ok'])")" \
	"(['$V000'], ['$V000'], True)" "build: threaded under the cover letter"
ok "build body: headline: the errors (the warnings come after the boots)" grep -qx \
	"lorebot built this series patch by patch and found errors" "$TMP/b.txt"
ok "build body: base line" grep -qx \
	"\[lorebot build ERROR on mm-new 065ab801c937ee62d3105e05a491b7721d8ed990\]" "$TMP/b.txt"
ok "build body: config and compiler" grep -qx \
	"compiler:      riscv64-linux-gnu-gcc (Debian 12.2.0-14+deb12u1) 12.2.0" "$TMP/b.txt"
ok "build body: Reported-by, prefixed" grep -qx "| Reported-by: lorebot <lorebot@localhost>" "$TMP/b.txt"
MID=$(json "$TMP/b.json" "d['message_id']")
ok "build body: Closes: the report's permanent page on the dashboard" \
	grep -qx "| Closes: http://127.0.0.1:8080/r/${MID%%-lorebot@*}" "$TMP/b.txt"
ok "build body: the new error, marked >>, unwrapped" grep -qx \
	">> mm/vmscan.c:3871:50: error: passing argument 3 of 'test_pud_bloom_filter' from incompatible pointer type \[-Werror=incompatible-pointer-types\]" \
	"$TMP/b.txt"
ok "build body: the new warning in its own section" grep -qx \
	">> mm/vmscan.c:2719:9: warning: macro \"MGLRU_EMPTY_SKIP_GENS\" is not used \[-Wunused-macros\]" \
	"$TMP/b.txt"
ok "build body: the patch that brought it, and the finding's id" grep -qx \
	"   (first seen with patch 7/9; id [0-9a-f]\{8\})" "$TMP/b.txt"
ok "build body: the source around it" grep -qx "vim +3871 mm/vmscan.c" "$TMP/b.txt"
ok "build body: the offending line marked" grep -qP \
	'^> 3871\t\t\tif \(!walk->force_scan && !test_pud_bloom_filter\(mm_state, walk->seq, pud \+ i\)\)$' "$TMP/b.txt"
ok "build body: its neighbours unmarked" grep -qP '^  3870\t\t\t/\* Skip a subtree' "$TMP/b.txt"
ok "build body: reproduce with lorebot, from that page" grep -qx \
	"        lorebot reproduce --repo linux http://127.0.0.1:8080/r/${MID%%-lorebot@*}" "$TMP/b.txt"
is "$(json "$TMP/b.json" "d['long_prose']")" "[]" "build body: prose within 78 columns"

# the boot regressions: a section of 000's one reply
sed -n '/^Boot regressions on /,/^New build warnings on /p' "$TMP/b.txt" >"$TMP/k.txt"
ok "boot body: the new test failure" grep -qx ">> mm/mremap_test: fail" "$TMP/k.txt"
ok "boot body: the kernel warning" grep -qx \
	">> new kernel warning: WARNING: CPU: 1 PID: 312 at mm/vmscan.c:3871 walk_pud_range+0x1a8/0x2c0 \[id [0-9a-f]\{8\}\]" "$TMP/k.txt"
ok "boot body: its trace" grep -qx "    walk_pud_range+0x1a8/0x2c0" "$TMP/k.txt"
ok "boot body: only arm64" grep -q "^Boot regressions on arm64, " "$TMP/k.txt"
unlike "$(cat "$TMP/k.txt")" "^x86_64 \(" "boot body: x86_64 (ok) is not in it"

# the check replies: 003 quotes the code from the patch and the suggestion
F=$(mail_of check "$V003")
summary "$F" >"$TMP/c.json"
json "$TMP/c.json" "d['body']" >"$TMP/c.txt"
is "$(json "$TMP/c.json" "d['subject']")" "Re: [PATCH mm-new v7 0/5] Improve khugepaged scan logic" \
	"check: findings in several patches: the cover letter"
ok "check body: the lazyfree-droppable finding" grep -qx \
	">> mm/khugepaged.c:587: warning: lazyfree folio kept or skipped by its dirtiness without VM_DROPPABLE: folios of VM_DROPPABLE VMAs are lazyfree and dropped even when dirty (see try_to_unmap_one() in mm/rmap.c) \[lazyfree-droppable\] \[id [0-9a-f]\{8\}\]" \
	"$TMP/c.txt"
ok "check body: the quoted lines marked in the patch's code" grep -qP \
	'^>  587\t\t\tif \(cc->is_khugepaged && !pte_dirty\(pteval\) &&$' "$TMP/c.txt"
ok "check body: both quoted lines marked" grep -qP \
	'^>  588\t\t\t    folio_test_lazyfree\(folio\)\) \{$' "$TMP/c.txt"
ok "check body: the suggestion" grep -q "^suggested \[progress-accounting\]:" "$TMP/c.txt"
ok "check body: grouped by patch" grep -qx "patch 4/5 (mm: khugepaged: skip lazy-free folios):" "$TMP/c.txt"
ok "check body: reproduce with lorebot check" grep -qx \
	"        lorebot check --repo linux --mbox $V003.mbx" "$TMP/c.txt"
unlike "$(cat "$TMP/c.txt")" "\[base-commit\]" "check body: notes are not mailed"
unlike "$(cat "$TMP/a.txt")" "no base-commit: the series does not say" \
	"check 004: the base-commit note is not among the findings"

# no duplicates: a second run composes and sends nothing
lorebot --config "$CONF" --db "$DB" reply --outbox "$OUT" --json >"$TMP/r2.json"
is "$(json "$TMP/r2.json" "(d['composed'], d['sent'])")" "(0, 0)" "a second run sends nothing"
is "$(ls "$OUT/new" | wc -l | tr -d ' ')" 3 "still three files"
# a reader moving mails to cur/ does not make them look undelivered
mv "$OUT"/new/* "$OUT/cur/"
sql "UPDATE replies SET state = 'sending' WHERE kind = 'apply'"
lorebot --config "$CONF" --db "$DB" reply --outbox "$OUT" --json >"$TMP/r3.json" 2>/dev/null
is "$(sql "SELECT state, reason FROM replies WHERE kind = 'apply'")" \
	"sent|found in the outbox after an interrupted delivery" \
	"an interrupted outbox delivery whose file is there is not filed again"
is "$(($(ls "$OUT/new" | wc -l) + $(ls "$OUT/cur" | wc -l)))" 3 "still three files in all"

# a later outcome (a build recorded again) amends nothing already sent
record "$V003" build "$RESULTS/build-000.json"
lorebot --config "$CONF" --db "$DB" reply --outbox "$OUT" --json >"$TMP/r4.json"
is "$(json "$TMP/r4.json" "d['composed']")" 0 "003 replied to: a new build result mails nothing"

lorebot --db "$DB" reply --outbox "$OUT" --series nosuch >/dev/null 2>&1
is "$?" 0 "--series of nothing: nothing to do"
fails "reply with an unknown option" lorebot --db "$DB" reply --bogus
is "$(sql 'PRAGMA integrity_check')" ok "integrity_check"
done_testing

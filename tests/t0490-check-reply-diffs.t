#!/bin/sh
# Diffs posted in replies (issue 40): a fold-in fix-up, a "-fix" patch,
# "[PATCH] tmp" inline in a "Re:" mail.  lorebot check --mbox reviews each
# as a patch of its own with the rules that read code (no sign-off or
# subject checks: it is a reply), shown under the version it answers; the
# dashboard lists them under that version; the daemon mails nothing about
# them.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

R=$FIXTURES/check/replies

# a reply alone: Jason A. Donenfeld's diff that drops VM_DROPPABLE
lorebot check --mbox "$R/droppable-v22-reply.mbox" --json >"$TMP/j.json" 2>"$TMP/j.err"
is "$?" 0 "a reply with a diff is checked (warnings: exit 0)"
is "$(json "$TMP/j.json" "sorted('%s %s:%s' % (f['rule'], f['file'], f['line']) for f in d['findings'])")" \
	"['lazyfree-droppable mm/rmap.c:1844', 'lazyfree-droppable mm/rmap.c:1854']" \
	"its diff is reviewed: the exemption it drops, at the decision and the re-marking"
is "$(json "$TMP/j.json" "(d['series'][0]['reply_to'], d['series'][0]['title'][:27])")" \
	"('20240709130513.98102-2-Jason@zx2c4.com', 'Re: [PATCH v22 1/4] mm: add')" \
	"the JSON says which message it answers"
lorebot check --mbox "$R/droppable-v22-reply.mbox" >"$TMP/j.txt" 2>&1
like "$(head -1 "$TMP/j.txt")" \
	"^== Re: \[PATCH v22 1/4\] .*\(a diff in a reply to <20240709130513.98102-2-Jason@zx2c4.com>\)" \
	"the text output names it a diff in a reply"

# in a thread: Vernon Yang's fix-up to v7 2/5, under the version it answers
T=$FIXTURES/lore/003_6100bb5053417aef.mbox
lorebot check --mbox "$T" --json --checkers=-checkpatch >"$TMP/t.json" 2>/dev/null
is "$(json "$TMP/t.json" "[(s['title'][:40], s.get('reply_to')) for s in d['series']]")" \
	"[('Improve khugepaged scan logic', None), ('Re: [PATCH mm-new v7 2/5] mm: khugepaged', '20260207081613.588598-3-vernon2gm@gmail.com')]" \
	"the thread: the series, and the diff in a reply to its patch 2"
is "$(json "$TMP/t.json" "[f['rule'] for f in d['findings'] if f['series'] == 1 and f['rule'] in ('signed-off-by', 'subject', 'numbering', 'checkpatch')]")" \
	"[]" "no mail checks on a reply"
lorebot check --mbox "$T" --series ncqLhG11X5h359BT@gmail.com --json >"$TMP/one.json" 2>/dev/null
is "$(json "$TMP/one.json" "[s['title'][:20] for s in d['series']]")" "['Re: [PATCH mm-new v7']" \
	"--series with the reply's Message-ID checks that diff alone"

# the dashboard: under v7, the diff in a reply, with the command that reviews it
dash_fill
serve_start
V7=$(sql "SELECT id FROM versions WHERE title LIKE 'Improve khugepaged scan logic%' AND version = 7 AND superseded_by IS NULL")
S7=$(sql "SELECT series FROM versions WHERE id = '$V7'")
curl -s "$WEB/series/$S7" >"$TMP/page.html"
like "$(sed -n '/Diffs in replies/,/<\/ul>/p' "$TMP/page.html")" \
	"ncqLhG11X5h359BT@gmail.com.*lorebot check --msgid ncqLhG11X5h359BT@gmail.com" \
	"the series page lists the diff in a reply under v7, with its check command"
curl -s "$WEB/api/series/$S7" >"$TMP/api.json"
is "$(json "$TMP/api.json" "[(f['msgid'], f['in_reply_to']) for v in d['series']['versions'] for f in v['fixups']]")" \
	"[('ncqLhG11X5h359BT@gmail.com', '20260207081613.588598-3-vernon2gm@gmail.com')]" \
	"the API lists it under the version too"
# the daemon's replies: none about it
is "$(sql "SELECT count(*) FROM replies WHERE subject LIKE '%ncqLhG11X5h359BT%' OR version = 'ncqLhG11X5h359BT@gmail.com'")" 0 \
	"nothing is mailed about it"
done_testing

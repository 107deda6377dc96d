#!/bin/sh
# lorebot b4-check against b4's side of its external check protocol
# (tests/b4-side.py): the command as the documented git config line
# names it, real patch mails on stdin; with --url the daemon's verdicts
# from a dashboard (fixture results), without it the local review; a
# JSON array of {tool, status, summary, url, details} and exit 0, [] for
# what it has nothing to say about, and a failure to run (no dashboard,
# something else at the URL) as a non-zero exit with nothing on stdout.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

mkdir -p "$TMP/bin" "$TMP/mail"
ln -s "$LOREBOT" "$TMP/bin/lorebot"
PATH=$TMP/bin:$PATH
export PATH
cat "$FIXTURES"/lore/000_*.mbox "$FIXTURES"/lore/003_*.mbox >"$TMP/both.mbox"
git mailsplit --mboxrd -o"$TMP/mail" "$TMP/both.mbox" >/dev/null
# mail_of SUBJECT-REGEX: the file of that message
mail_of() {
	grep -l -m1 "^Subject: .*$1" "$TMP"/mail/* | head -1
}
P000_7=$(mail_of '\[PATCH 7/9\]')
P000_2=$(mail_of '\[PATCH 2/9\]')
P000_9=$(mail_of '\[PATCH 9/9\]')
C000=$(mail_of '\[PATCH 0/9\]')
P003_4=$(mail_of '\[PATCH mm-new v7 4/5\]')
P003_1=$(mail_of '\[PATCH mm-new v7 1/5\]')
C003=$(mail_of '\[PATCH mm-new v7 0/5\]')
for f in "$P000_7" "$P000_2" "$P000_9" "$C000" "$P003_4" "$P003_1" "$C003"; do
	[ -f "$f" ] || { echo "Bail out! a fixture mail is missing"; exit 1; }
done
side() {
	$PY "$LOREBOT_SRC/tests/b4-side.py" "$@"
}
# q FILE EXPR: a value of b4's reading
q() {
	json "$1" "$2"
}

# the documented line, in the user's configuration (HOME is the test's)
fill_db
record_all
serve_start
git config --global --add b4.review-perpatch-check-cmd "lorebot b4-check --url $WEB/"
git config --global --add b4.review-series-check-cmd "lorebot b4-check --url $WEB/"

side perpatch "$P000_7" >"$TMP/s7.json"
is "$(q "$TMP/s7.json" "(d['exit'], d['errors'])")" "(0, [])" \
	"--url, 000 7/9: exit 0, an answer by the protocol"
is "$(q "$TMP/s7.json" "sorted(r['tool'] for r in d['results'])")" \
	"['lorebot-apply', 'lorebot-build-arm64', 'lorebot-build-riscv', 'lorebot-build-x86_64', 'lorebot-review']" \
	"one result per context (no boot on a patch that is not the last)"
is "$(q "$TMP/s7.json" "[(r['status'], r['summary']) for r in d['results'] if r['tool'] == 'lorebot-build-riscv']")" \
	"[('fail', \"1 new error, 0 new warnings: passing argument 3 of 'test_pud_bloom_filter' from incompatible pointer type [-Werror=incompatible-pointer-types]\")]" \
	"riscv: fail, the error patch 7 brings"
is "$(q "$TMP/s7.json" "[r['status'] for r in d['results'] if r['tool'] in ('lorebot-build-x86_64', 'lorebot-apply')]")" \
	"['pass', 'pass']" "it applies and builds on x86_64: pass"
like "$(q "$TMP/s7.json" "d['results'][0]['url']")" "^$WEB/series/$S000#v1\$" \
	"the url: the version on the dashboard"
side perpatch "$P000_2" >"$TMP/s2.json"
is "$(q "$TMP/s2.json" "[(r['status'], r['summary']) for r in d['results'] if r['tool'] == 'lorebot-build-arm64']")" \
	"[('warn', '0 new errors, 1 new warning: macro \"MGLRU_EMPTY_SKIP_GENS\" is not used [-Wunused-macros]')]" \
	"000 2/9: arm64's new warning: warn"
side perpatch "$P000_9" >"$TMP/s9.json"
is "$(q "$TMP/s9.json" "[(r['status'], r['summary']) for r in d['results'] if r['tool'].startswith('lorebot-boot')]")" \
	"[('fail', '1 new kselftest failure: mm/mremap_test; 1 kernel report'), ('pass', 'the series boots; 6 kselftests pass')]" \
	"000 9/9, the last: the boots, arm64's regression a fail"
side series "$C000" >"$TMP/c0.json"
is "$(q "$TMP/c0.json" "(d['exit'], d['errors'], len(d['results']))")" "(0, [], 7)" \
	"the cover letter: one result per context (apply, review, 3 builds, 2 boots: riscv's build failed)"
is "$(q "$TMP/c0.json" "[r['status'] for r in d['results'] if r['tool'] == 'lorebot-build-riscv']")" \
	"['fail']" "each its worst patch's"
like "$(q "$TMP/c0.json" "[r['details'] for r in d['results'] if r['tool'] == 'lorebot-build-riscv'][0]")" \
	"patch 7: fail" "and every patch in details"
side perpatch "$P003_4" >"$TMP/s34.json"
is "$(q "$TMP/s34.json" "[(r['status'], r['summary'][:40]) for r in d['results'] if r['tool'] == 'lorebot-review']")" \
	"[('warn', '0 errors, 2 warnings: lazyfree-droppable')]" \
	"003 4/5: the mm-rule findings of the daemon's review"
# a message the bot has not seen
sed 's/^Message-I[Dd]: .*/Message-ID: <not-seen@example.org>/' "$P003_4" >"$TMP/unseen.eml"
side perpatch "$TMP/unseen.eml" >"$TMP/u.json"
is "$(q "$TMP/u.json" "(d['exit'], d['stdout'].strip(), d['results'], d['errors'])")" \
	"(0, '[]', [], [])" "a message the dashboard does not know: [] and exit 0"

# failing to run: no dashboard there, or not a lorebot one
NOPE=$(free_port)
git config --global --replace-all b4.review-perpatch-check-cmd "lorebot b4-check --url http://127.0.0.1:$NOPE/"
side perpatch "$P000_7" >"$TMP/f.json"
is "$(q "$TMP/f.json" "(d['exit'], d['stdout'], d['errors'])")" "(3, '', [])" \
	"nothing at the URL: exit 3, nothing on stdout"
is "$(q "$TMP/f.json" "d['results'][0]['summary']")" "exited with error code 3" \
	"which b4 shows as the check's failure"
like "$(q "$TMP/f.json" "d['results'][0]['details']")" "127.0.0.1:$NOPE" "with why"
git config --global --replace-all b4.review-perpatch-check-cmd "lorebot b4-check --url $WEB/r/x/"
side perpatch "$P000_7" >"$TMP/f2.json"
is "$(q "$TMP/f2.json" "(d['exit'], d['stdout'])")" "(3, '')" \
	"a URL that answers something else: exit 3, nothing on stdout"
serve_stop

# without --url: the review, here
git config --global --replace-all b4.review-perpatch-check-cmd "lorebot b4-check"
side perpatch "$P003_4" >"$TMP/l4.json"
is "$(q "$TMP/l4.json" "(d['exit'], d['errors'], [(r['tool'], r['status']) for r in d['results']])")" \
	"(0, [], [('lorebot-review', 'warn')])" "local review of 003 4/5: warn"
like "$(q "$TMP/l4.json" "d['results'][0]['details']")" \
	"mm/khugepaged.c:[0-9]+: warning: .*\[lazyfree-droppable\]" \
	"the mm-rule finding in compiler format in details"
side perpatch "$P003_1" >"$TMP/l1.json"
is "$(q "$TMP/l1.json" "(d['exit'], d['errors'], [(r['tool'], r['status']) for r in d['results']])")" \
	"(0, [], [('lorebot-review', 'pass')])" "003 1/5: nothing of the mm rules: pass"
side perpatch "$C003" >"$TMP/lc.json"
is "$(q "$TMP/lc.json" "(d['exit'], d['errors'])")" "(0, [])" "a cover letter: by the protocol"
printf 'From: a@b.c\nSubject: Re: thanks\nMessage-ID: <r@b.c>\n\nApplied.\n' >"$TMP/reply.eml"
side perpatch "$TMP/reply.eml" >"$TMP/lr.json"
is "$(q "$TMP/lr.json" "(d['exit'], d['stdout'].strip())")" "(0, '[]')" "not a patch: []"
printf 'no headers at all\n' | lorebot b4-check >"$TMP/bad.out" 2>"$TMP/bad.err"
is "$?" 2 "no Message-ID: exit 2"
is "$(cat "$TMP/bad.out")" "" "and nothing on stdout"

done_testing

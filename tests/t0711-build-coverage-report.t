#!/bin/sh
# The changed lines a build compiled, in the reply and on the dashboard
# (headless Chromium), from the build results of lorebot build itself
# (tests/fixtures/results/build-coverage*.json: the series of
# tests/fixtures/build/coverage, built for x86_64 with and without the
# config repair).  Repaired: two new warnings, 6 of 7 lines compiled, the
# seventh powerpc's; not repaired: nothing new found, 0 of 5 lines
# compiled, which is no clean build: the version is partial, the reply
# says INCOMPLETE and what was not compiled.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

# the series' mails, threaded, as the list carried them
$PY - "$FIXTURES/build/coverage" "$TMP/cov.mbox" "$TMP/nr.mbox" <<'EOF'
import email, glob, mailbox, sys
out = mailbox.mbox(sys.argv[2])
one = mailbox.mbox(sys.argv[3])
for n, path in enumerate(sorted(glob.glob(sys.argv[1] + "/*.patch")), 1):
    m = email.message_from_binary_file(open(path, "rb"))
    m["To"] = "linux-mm@kvack.org"
    m["Message-ID"] = "<cov-%d@example.org>" % n
    if n > 1:
        m["In-Reply-To"] = "<cov-1@example.org>"
    out.add(m)
    if n == 1:
        # the first patch alone, another series: the build without repair
        del m["Message-ID"]
        m["Message-ID"] = "<nr-1@example.org>"
        m.replace_header("Subject", "[PATCH] mm/damon/core: count the bytes of a region")
        one.add(m)
out.flush()
one.flush()
EOF
fill_db "$TMP/cov.mbox" "$TMP/nr.mbox"
VC=cov-1@example.org
VN=nr-1@example.org
$PY - "$RESULTS/apply-one.json" 3 >"$TMP/apply3.json" <<'EOF'
import copy, json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
p = d["patches"][0]
d["patches"] = []
for i in range(1, n + 1):
    q = copy.deepcopy(p)
    q["n"], q["total"] = i, n
    d["patches"].append(q)
json.dump(d, sys.stdout)
EOF
echo '{"findings": []}' >"$TMP/none.json"
for v in $VC $VN; do
	record "$v" apply "$([ $v = $VC ] && echo "$TMP/apply3.json" || echo "$RESULTS/apply-one.json")"
	record "$v" check "$TMP/none.json"
	record "$v" boot "$RESULTS/boot-003.json"
done
record $VC build "$RESULTS/build-coverage.json"
record $VN build "$RESULTS/build-coverage-norepair.json"

# the summaries: the arch's own lines
is "$(sql "SELECT status || ': ' || summary FROM results WHERE version = '$VC' AND stage = 'build'")" \
	"warnings: 2 new warnings; compiled 6 of 6 changed lines (100%)" \
	"repaired: the summary counts x86_64's own lines"
is "$(sql "SELECT status || ': ' || summary FROM results WHERE version = '$VN' AND stage = 'build'")" \
	"partial: partial; compiled 0 of 5 changed lines (0%)" \
	"not repaired: partial, 0 of 5"

# the replies
report_conf reply.clean=true build.arch=x86_64
dry_split
ok "a reply to the repaired series" test -s "$TMP/mail-cov-1"
is "$(head -1 "$TMP/mail-cov-1")" build "it is a build reply (two new warnings)"
like "$(tr '\n' ' ' <"$TMP/mail-cov-1" | tr -s ' ')" \
	"Not all of the change was compiled: compiled 6 of 7 changed lines \(85%\) on at least one arch; not compiled: mm/madvise.c:42 \(inside #ifdef CONFIG_PPC_64S_HASH_MMU: needs CONFIG_PPC_64S_HASH_MMU; CONFIG_PPC_64S_HASH_MMU cannot be enabled on x86_64: declared for powerpc only\)\." \
	"one line: the figure and what was not compiled, why"
ok "a reply to the series built without repair" test -s "$TMP/mail-nr-1"
is "$(head -1 "$TMP/mail-nr-1")" clean "nothing found: a clean reply..."
ok "... whose headline is INCOMPLETE, not PASSED" grep -q "^\[lorebot test INCOMPLETE on " "$TMP/mail-nr-1"
like "$(tr '\n' ' ' <"$TMP/mail-nr-1" | tr -s ' ')" \
	"Not all of the change was compiled: compiled 0 of 5 changed lines \(0%\) on at least one arch; not compiled: include/linux/damon.h:668-671 \(no unit built for x86_64 includes it\); mm/damon/core.c:143 \(not built: needs CONFIG_DAMON" \
	"it says what was not compiled and why"
ok "its line of the build stage is partial" grep -q "^  build  x86_64  partial; compiled 0 of 5" "$TMP/mail-nr-1"

# the dashboard, as a browser builds it
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	skip_all "no chromium (Debian package chromium)"
serve_start --config "$CONF"
page() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --user-data-dir="$TMP/chrome-$2" --window-size=1280,2000 \
		--dump-dom "$WEB/series/$1" 2>>"$TMP/chrome.err"
}
cover() {
	$PY - "$1" <<'EOF'
import json, sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cov, self.rows, self.text = None, [], []
        self.in_cov = self.in_table = False
        self.row = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "p" and a.get("class") == "coverage":
            self.cov = {k: a.get("data-" + k) for k in ("changed", "compiled", "archs")}
            self.cov["text"] = ""
            self.in_cov = True
        if tag == "table" and a.get("class") == "uncompiled":
            self.in_table = True
        if tag == "tr" and self.in_table:
            self.row = []
        if tag == "td" and self.row is not None:
            self.row.append("")
    def handle_endtag(self, tag):
        if tag == "p":
            self.in_cov = False
        if tag == "table":
            self.in_table = False
        if tag == "tr" and self.row:
            self.rows.append(self.row)
            self.row = None
    def handle_data(self, data):
        if self.in_cov:
            self.cov["text"] += data
        if self.row:
            self.row[-1] += data
        self.text.append(data)

p = P()
p.feed(open(sys.argv[1]).read())
print(json.dumps({"cov": p.cov, "rows": p.rows, "text": " ".join(" ".join(p.text).split())}))
EOF
}
page $VC 1 >"$TMP/cov.dom"
is "$?" 0 "chromium loads the repaired series' page"
cover "$TMP/cov.dom" >"$TMP/cov.json"
is "$(json "$TMP/cov.json" "(d['cov']['changed'], d['cov']['compiled'], d['cov']['archs'])")" \
	"('7', '6', '1')" "the page's figures: 6 of 7 lines, one arch measured"
like "$(json "$TMP/cov.json" "d['cov']['text']")" \
	"^partial compiled 6 of 7 changed lines \(85%\) on at least one arch" \
	"a partial badge and the line"
is "$(json "$TMP/cov.json" "d['rows']")" \
	"[['3', 'mm/madvise.c:42', 'x86_64: inside #ifdef CONFIG_PPC_64S_HASH_MMU: needs CONFIG_PPC_64S_HASH_MMU; CONFIG_PPC_64S_HASH_MMU cannot be enabled on x86_64: declared for powerpc only']]" \
	"the range not compiled, its patch and x86_64's reason"
like "$(json "$TMP/cov.json" "d['text']")" "x86_64 warnings 2 new warnings; compiled 6 of 6 changed lines \(100%\)" \
	"the arch's row: its verdict and its own figure"
page $VN 2 >"$TMP/nr.dom"
cover "$TMP/nr.dom" >"$TMP/nr.json"
is "$(json "$TMP/nr.json" "(d['cov']['changed'], d['cov']['compiled'])")" "('5', '0')" \
	"without repair: 0 of 5"
like "$(json "$TMP/nr.json" "d['text']")" "x86_64 partial partial; compiled 0 of 5 changed lines \(0%\)" \
	"the arch is partial, not ok"
chrome_list() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TMP/chrome-3" --dump-dom "$WEB/" 2>>"$TMP/chrome.err"
}
chrome_list >"$TMP/list.dom"
ok "the list says partial, not passed, for the version built without repair" \
	grep -q "data-version-id=\"$VN\" data-state=\"partial\"" "$TMP/list.dom"

done_testing

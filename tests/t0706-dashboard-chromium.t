#!/bin/sh
# The dashboard in a real browser (headless Chromium): the series list
# with the right states, the cause of a build failure and a build running
# on their rows, a series page with its findings, HTML in mail shown as
# text; screenshots of each page (laptop and phone) are kept in
# tests/artifacts/t0706-dashboard-chromium/
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	skip_all "no chromium (Debian package chromium)"
dash_fill
# the daemon at work on the HTML series: a build running for 4 minutes
now=$(date +%s)
sql "INSERT INTO jobs (kind, version, arch, state, queued, started) VALUES
	('build', '$VXSS', 'riscv', 'running', $now, $((now - 250))),
	('build', '$VXSS', 'arm64', 'queued', $now, NULL)"
serve_start
mkdir -p "$ARTIFACTS"
rm -f "$ARTIFACTS"/*.png

# chrome OUTPUT-OPTION SIZE URL: one headless run with a fresh profile
_runs=0
chrome() {
	_runs=$((_runs + 1))
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --user-data-dir="$TMP/chrome-$_runs" --hide-scrollbars \
		--window-size="$2" "$1" "$3" 2>>"$TMP/chrome.err"
}

# rows (version id, state, title text), script/img elements, the page title
dom() {
	$PY - "$1" <<'EOF'
import json, sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.tags, self.title, self.text = [], {}, "", []
        self.cur = None
        self.job = None
        self.in_title = self.in_a = self.in_cause = False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "tr" and a.get("class") == "series":
            self.cur = {"id": a.get("data-version-id"), "state": a.get("data-state"), "title": "",
                        "cause": "", "jobs": []}
            self.rows.append(self.cur)
        if tag == "td" and self.cur is not None and a.get("class") == "title":
            self.in_a = True
        if tag == "div" and self.cur is not None and a.get("class") == "cause":
            self.in_cause = True
        if tag == "span" and self.cur is not None and a.get("data-job"):
            self.job = [a.get("data-job"), ""]
            self.cur["jobs"].append(self.job)
        if tag == "title":
            self.in_title = True
    def handle_endtag(self, tag):
        if tag == "td":
            self.in_a = False
        if tag == "div":
            self.in_cause = False
        if tag == "span" and self.job is not None and self.job[1]:
            self.job = None
        if tag == "tr":
            self.cur = None
        if tag == "title":
            self.in_title = False
    def handle_data(self, data):
        self.text.append(data)
        if self.in_cause and self.cur is not None:
            self.cur["cause"] += data
        elif self.in_a and self.cur is not None:
            self.cur["title"] += data
        if self.job is not None:
            self.job[1] += data
        if self.in_title:
            self.title += data

p = P()
p.feed(open(sys.argv[1]).read())
print(json.dumps({"rows": p.rows, "script": p.tags.get("script", 0), "img": p.tags.get("img", 0),
                  "title": p.title, "text": " ".join(" ".join(p.text).split())}))
EOF
}

chrome --dump-dom 1280,900 "$WEB/" >"$TMP/list.dom"
is "$?" 0 "chromium loads the series list"
dom "$TMP/list.dom" >"$TMP/list.json"
is "$(json "$TMP/list.json" "len(d['rows'])")" 5 "five series versions listed"
is "$(json "$TMP/list.json" "sorted((r['id'], r['state']) for r in d['rows'] if r['id'] in ('$V000', '$V003', '$V004'))")" \
	"[('$V004', 'apply-failed'), ('$V003', 'findings'), ('$V000', 'build-failed')]" \
	"the three series with their states"
is "$(json "$TMP/list.json" "[r['title'] for r in d['rows'] if r['id'] == '$VXSS']")" \
	"['mm: <script>alert(1)</script> & \"fix\"']" "a subject with <script> is shown as text"
is "$(json "$TMP/list.json" "(d['script'], d['img'])")" "(0, 0)" \
	"no script or img element in the page as the browser built it"
is "$(json "$TMP/list.json" "d['title']")" "series - lorebot" "the page title is untouched"
# git mailinfo reads that From: as the address alone (Author: mal@...),
# and so does lorebot since issue 20
like "$(json "$TMP/list.json" "d['text']")" "mal@example\.org v1" \
	"an author name with HTML is read as git mailinfo reads it, not as markup"
like "$(json "$TMP/list.json" "d['text']")" "x86_64 ok ok arm64 warnings regressions riscv errors" \
	"build and boot state per arch"
is "$(json "$TMP/list.json" "[(r['state'], r['cause']) for r in d['rows'] if r['id'] == '$V000']")" \
	"[('build-failed', 'riscv: mm/vmscan.c:3871: error (7/9)')]" \
	"the row of the build-failed series shows its cause: arch, file:line, patch"
is "$(json "$TMP/list.json" "[(r['state'], r['jobs'], r['cause']) for r in d['rows'] if r['id'] == '$VXSS']")" \
	"[('testing', [['queued', 'queued'], ['running', 'building 4m']], 'riscv building 4m, 1 job queued')]" \
	"a running build shows as running (building 4m), a queued one as queued"

chrome --dump-dom 1280,900 "$WEB/series/$S003" >"$TMP/s003.dom"
dom "$TMP/s003.dom" >"$TMP/s003.json"
like "$(json "$TMP/s003.json" "d['text']")" \
	"mm/khugepaged.c:587 lazyfree folio kept or skipped by its dirtiness without VM_DROPPABLE" \
	"the series page shows its findings"
like "$(json "$TMP/s003.json" "d['text']")" "mm/khugepaged.c:2395 'hpage_collapse_scan_file\(\)' charges a fixed amount" \
	"the progress-accounting finding"
like "$(json "$TMP/s003.json" "d['text']")" "v7 \(incomplete\) \(superseded\) superseded" "and the superseded, incomplete first send"
chrome --dump-dom 1280,900 "$WEB/series/$VXSS" >"$TMP/sxss.dom"
dom "$TMP/sxss.dom" >"$TMP/sxss.json"
is "$(json "$TMP/sxss.json" "(d['script'], d['img'])")" "(0, 0)" \
	"the page of the HTML series has no script or img element"
like "$(json "$TMP/sxss.json" "d['text']")" "int b; /\* </pre><script>alert\(3\)</script> \*/" \
	"its quoted code is shown as text"

# screenshots
shot() {
	chrome --screenshot="$ARTIFACTS/$1.png" "$2" "$3" >/dev/null
	$PY -c 'import struct, sys
b = open(sys.argv[1], "rb").read(24)
w, h = struct.unpack(">II", b[16:24])
print(b[:8] == b"\x89PNG\r\n\x1a\n", w, h)' "$ARTIFACTS/$1.png" 2>/dev/null
}
is "$(shot list 1280,900 "$WEB/")" "True 1280 900" "screenshot: the list on a laptop"
is "$(shot list-phone 390,844 "$WEB/")" "True 390 844" "screenshot: the list on a phone"
is "$(shot series-running 1280,900 "$WEB/series/$VXSS")" "True 1280 900" \
	"screenshot: a series page while its build runs"
is "$(shot series 1280,2400 "$WEB/series/$S000")" "True 1280 2400" "screenshot: a series page"
is "$(shot series-phone 390,2400 "$WEB/series/$S004")" "True 390 2400" "screenshot: a series page on a phone"
is "$(shot xss 1280,900 "$WEB/series/$VXSS")" "True 1280 900" "screenshot: the HTML series"
done_testing

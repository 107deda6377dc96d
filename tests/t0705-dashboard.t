#!/bin/sh
# lorebot serve: the JSON API, health, metrics, pages, filters, escaping,
# logs, read-only use of the database
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

dash_fill
mkdir -p "$TMP/state/logs"
printf 'make[1]: Entering directory\nmm/vmscan.c:3871:50: error: boom\n' >"$TMP/state/logs/riscv.log"
printf 'secret\n' >"$TMP/secret.log"
$PY - "$RESULTS/build-000.json" "$TMP/state/logs/riscv.log" "$TMP/secret.log" >"$TMP/b.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["archs"][2]["log"] = sys.argv[2]
d["archs"][1]["log"] = sys.argv[3]
json.dump(d, sys.stdout)
EOF
record "$V000" build "$TMP/b.json"
# a stage that failed on the server says where: the pages must not
cat >"$TMP/infra.json" <<JSON
{"archs": [{"arch": "riscv", "status": "infra", "log_dir": "$TMP/state/jobs/7/build-riscv",
  "infra": "cannot create '$TMP/state/jobs/7/build-riscv': No space left on device"}]}
JSON
record "$VXSS" build "$TMP/infra.json"
sha0=$(sha1sum "$DB" | cut -d' ' -f1)
serve_start

get() {
	curl -s -o "$TMP/body" -D "$TMP/head" -w '%{http_code}' "$WEB$1"
}

is "$(get /healthz)" 200 "/healthz: 200"
is "$(json "$TMP/body" "(d['status'], d['versions'], d['results'])")" "('ok', 5, True)" \
	"/healthz: ok, the versions, the report tables"

# the API: lorebot series --json's objects, plus state, results, mails
is "$(get /api/series)" 200 "/api/series: 200"
like "$(cat "$TMP/head")" "Content-Type: application/json" "as JSON"
cp "$TMP/body" "$TMP/api.json"
lorebot --db "$DB" series --json >"$TMP/series.json"
is "$($PY - "$TMP/api.json" "$TMP/series.json" <<'EOF'
import json, sys
api = json.load(open(sys.argv[1]))["series"]
cli = {v["id"]: v for v in json.load(open(sys.argv[2]))["series"]}
extra = {"state", "results", "mails", "list", "cause", "counts", "fixups"}
same = all({k: v for k, v in a.items() if k not in extra} == cli[a["id"]] for a in api)
print(len(api) == len(cli), same, all(extra <= set(a) for a in api))
EOF
)" "True True True" "every version of 'lorebot series --json', the same object plus seven keys"
is "$(json "$TMP/api.json" "[v['date'] for v in d['series']] == sorted([v['date'] for v in d['series']], reverse=True)")" \
	True "newest first"
is "$(json "$TMP/api.json" "sorted((v['id'], v['state']) for v in d['series'])")" \
	"[('$V004', 'apply-failed'), ('$V003OLD', 'superseded'), ('$V003', 'findings'), ('$V000', 'build-failed'), ('$VXSS', 'testing')]" \
	"the states: 004 apply-failed, 003 findings (its first send superseded), 000 build-failed"
# why: one line per version, findings by severity
is "$(json "$TMP/api.json" "sorted((v['id'], v['cause']) for v in d['series'])")" \
	"[('$V004', '2/4 does not apply to mm-new: arch/arm64/include/asm/tlbflush.h'), ('$V003OLD', None), ('$V003', 'mm/khugepaged.c:2395: progress-accounting warning (2/5)'), ('$V000', 'riscv: mm/vmscan.c:3871: error (7/9)'), ('$VXSS', None)]" \
	"cause: the failing patch and base, the build error and its patch, the worst finding"
is "$(json "$TMP/api.json" "[v['counts'] for v in d['series'] if v['id'] == '$V000'][0]")" \
	"{'errors': 3, 'warnings': 9, 'notes': 0}" \
	"counts: the riscv error and arm64's two boot regressions; eight check and one new build warning"
is "$(json "$TMP/api.json" "[v['counts'] for v in d['series'] if v['id'] == '$V004'][0]")" \
	"{'errors': 0, 'warnings': 7, 'notes': 1}" "counts: notes apart"
is "$(json "$TMP/api.json" "[(a, r['status']) for v in d['series'] if v['id'] == '$V000' for a, r in sorted(v['results']['build'].items())]")" \
	"[('arm64', 'warnings'), ('riscv', 'errors'), ('x86_64', 'ok')]" "results: build per arch"
is "$(json "$TMP/api.json" "[v['results']['apply']['result']['patches'][1]['file'] for v in d['series'] if v['id'] == '$V004'][0]")" \
	"arch/arm64/include/asm/tlbflush.h" "results: the recorded document itself"
is "$(json "$TMP/api.json" "[sorted(m['kind'] for m in v['mails']) for v in d['series'] if v['id'] == '$V000'][0]")" \
	"['build']" "mails: the one reply about a version"
is "$(json "$TMP/api.json" "any('mail' in m for v in d['series'] for m in v['mails'])")" False \
	"the list leaves the mail texts out"
is "$(get "/api/series/$S004")" 200 "/api/series/<series id>: 200"
is "$(json "$TMP/body" "(d['series']['id'], [v['id'] for v in d['series']['versions']])")" \
	"('$S004', ['$V004'])" "the series and its versions"
like "$(json "$TMP/body" "d['series']['versions'][0]['mails'][0]['mail']")" \
	"^From: lorebot <lorebot@localhost>" "with the reply texts"
is "$(get "/api/series/$V003")" 200 "/api/series/<version id>: its series"
is "$(json "$TMP/body" "[v['id'] for v in d['series']['versions']]")" "['$V003', '$V003OLD']" \
	"both sends of 003"
is "$(get /api/series/nosuch)" 404 "an unknown series: 404"
is "$(json "$TMP/body" "d['error']")" "no series or version 'nosuch'" "with a JSON error"
is "$(get "/api/series?state=apply-failed")" 200 "filters on the API"
is "$(json "$TMP/body" "[v['id'] for v in d['series']]")" "['$V004']" "?state=apply-failed"

# metrics
is "$(get /metrics)" 200 "/metrics: 200"
like "$(cat "$TMP/head")" "Content-Type: text/plain; version=0.0.4" "Prometheus text format"
ok "series versions by state" grep -qx 'lorebot_series_versions{state="apply-failed"} 1' "$TMP/body"
ok "every state is there (0 too)" grep -qx 'lorebot_series_versions{state="passed"} 0' "$TMP/body"
ok "replies by state" grep -qx 'lorebot_replies{state="sent"} 3' "$TMP/body"
ok "reply queue length" grep -qx 'lorebot_queue_length{queue="replies"} 0' "$TMP/body"
ok "no jobs yet: the job queue is empty" grep -qx 'lorebot_queue_length{queue="jobs"} 0' "$TMP/body"
ok "messages" grep -qx 'lorebot_messages 58' "$TMP/body"
is "$($PY - "$TMP/body" <<'EOF'
import re, sys
ok = True
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("#"):
        ok &= bool(re.match(r"# (HELP|TYPE) lorebot_[a-z_]+ \S", line))
    else:
        ok &= bool(re.match(r'lorebot_[a-z_]+(\{[a-z]+="[^"]*"\})? -?[0-9.e+]+$', line))
print(ok)
EOF
)" True "every line is valid exposition format"

# pages
is "$(get /)" 200 "/: 200"
like "$(cat "$TMP/head")" "Content-Type: text/html; charset=utf-8" "HTML"
like "$(cat "$TMP/head")" "Content-Security-Policy: default-src 'none'" "a CSP that allows no scripts"
like "$(cat "$TMP/head")" "X-Content-Type-Options: nosniff" "nosniff"
cp "$TMP/body" "$TMP/list.html"
is "$(grep -c '<tr class="series"' "$TMP/list.html")" 5 "five rows"
ok "auto-refresh" grep -q '<meta http-equiv="refresh" content="30">' "$TMP/list.html"
ok "a viewport for phones" grep -q 'name="viewport" content="width=device-width' "$TMP/list.html"
unlike "$(cat "$TMP/list.html")" '(src|href)="https?://' "no external assets"
ok "the XSS subject is escaped" grep -q 'mm: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;fix&quot;' "$TMP/list.html"
unlike "$(cat "$TMP/list.html")" "<script|<img" "no script or img element at all"
ok "rows carry their state" grep -q "data-version-id=\"$V004\" data-state=\"apply-failed\"" "$TMP/list.html"
# row VERSION-ID: that version's row of $TMP/list.html, on one line
row() {
	$PY - "$TMP/list.html" "$1" <<'EOF'
import re, sys
html = open(sys.argv[1]).read()
m = re.search(r'<tr class="series" data-version-id="%s".*?</tr>' % re.escape(sys.argv[2]), html, re.S)
print(m.group(0).replace("\n", "") if m else "")
EOF
}
like "$(row "$V000")" '<div class="cause">riscv: mm/vmscan.c:3871: error \(7/9\)</div>' \
	"the build-failed row says which arch, where and which patch"
like "$(row "$V004")" '<div class="cause">2/4 does not apply to mm-new: arch/arm64/include/asm/tlbflush.h</div>' \
	"the apply-failed row: which patch, onto what, which file"
like "$(row "$V003")" '<div class="cause">mm/khugepaged.c:2395: progress-accounting warning \(2/5\)</div>' \
	"the findings row: an mm rule before checkpatch's error"
like "$(row "$V000")" '<td data-label="findings"><span data-sev="errors"><span class="b s-bad"[^>]*>3 errors</span></span> <span data-sev="warnings"><span class="b s-warn"[^>]*>9 warnings</span></span></td>' \
	"findings split: errors red, warnings yellow"
like "$(row "$V004")" '<span data-sev="notes"><span class="b s-mute"[^>]*>1 note</span>' "notes muted"
like "$(row "$V003OLD")" '<td data-label="findings"><span class="muted">&ndash;</span></td>' "none: a dash"
is "$(get "/?state=build-failed")" 200 "?state="
is "$(grep -c '<tr class="series"' "$TMP/body")" 1 "?state=build-failed: one row"
ok "the right one" grep -q "data-version-id=\"$V000\"" "$TMP/body"
get "/?author=vernon" >/dev/null
is "$(grep -c '<tr class="series"' "$TMP/body")" 2 "?author=vernon: the two sends of 003"
get "/?q=lazyfree" >/dev/null
is "$(grep -c '<tr class="series"' "$TMP/body")" 1 "?q=lazyfree: 004"
get "/?q=%3Cscript%3E" >/dev/null
ok "a filter value is escaped back into the form" grep -q 'value="&lt;script&gt;"' "$TMP/body"

is "$(get "/series/$S000")" 200 "/series/<id>: 200"
cp "$TMP/body" "$TMP/s000.html"
ok "each patch" grep -q '\[PATCH 7/9\] mm/mglru: skip PUD subtrees during aging' "$TMP/s000.html"
ok "a build finding under its patch" grep -q "passing argument 3 of &#39;test_pud_bloom_filter&#39;" "$TMP/s000.html"
ok "the checker findings" grep -q "&#39;specifc&#39; may be a typo of &#39;specific&#39;" "$TMP/s000.html"
ok "the boot finding" grep -q "WARNING: CPU: 1 PID: 312 at mm/vmscan.c:3871" "$TMP/s000.html"
ok "the replies, with their text" grep -qF "Subject: Re: [PATCH 0/9] mm/mglru" "$TMP/s000.html"
ok "a log link" grep -q 'href="/log/[0-9]*">build log</a>' "$TMP/s000.html"
get "/series/$S003" >/dev/null
like "$(tr -d '\n' <"$TMP/body")" '<details class="superseded"><summary>v7, superseded</summary><section class="version" id="v7">.*<h2>v7 \(incomplete\) \(superseded\)' \
	"a superseded version is folded"
is "$(grep -c '<details class="superseded">' "$TMP/body")" 1 "the current one is not"
ok "a lore link" grep -q "href=\"https://lore.kernel.org/r/$V000/\"" "$TMP/s000.html"
RISCV=$(sql "SELECT id FROM results WHERE version = '$V000' AND stage = 'build' AND arch = 'riscv'")
# why PAGE-FILE: the why box of a series page, on one line
why() {
	$PY - "$1" <<'EOF'
import re, sys
m = re.search(r'<div class="why.*?</div>', open(sys.argv[1]).read(), re.S)
print(m.group(0).replace("\n", " ") if m else "")
EOF
}
like "$(why "$TMP/s000.html")" '^<div class="why s-bad"><p class="cause">riscv: mm/vmscan.c:3871: error \(7/9\)</p>' \
	"the series page: a why box"
like "$(why "$TMP/s000.html")" "<pre>passing argument 3 of &#39;test_pud_bloom_filter&#39; from incompatible pointer type" \
	"with the error text"
like "$(why "$TMP/s000.html")" "<a href=\"/log/$RISCV\">build log</a>" "and the log of the failed build"
like "$(sed -n '/<h2>v/,/<dl/p' "$TMP/s000.html" | tr -d '\n')" '</h2><div class="why' "right under the state"
get "/series/$S004" >/dev/null
like "$(why "$TMP/body")" '<p class="cause">2/4 does not apply to mm-new: arch/arm64/include/asm/tlbflush.h</p><pre>@@ -322,13 \+322,6 @@' \
	"an apply failure: the patch, then its hunk"
like "$(why "$TMP/body")" "closest match at lines 333-343 of the tree" "and why it does not apply"
get "/series/$VXSS" >/dev/null
cp "$TMP/body" "$TMP/xss.html"
unlike "$(cat "$TMP/xss.html")" "<script|<img" "the XSS series page has no script or img element"
ok "its quoted code is escaped" grep -q '&lt;/pre&gt;&lt;script&gt;alert(3)&lt;/script&gt;' "$TMP/xss.html"
ok "its finding message is escaped" grep -q '&lt;/td&gt;&lt;script&gt;alert(4)&lt;/script&gt;' "$TMP/xss.html"
# no server paths on public pages, with or without the configuration
nopaths() {
	for _p in / "/series/$S000" "/series/$VXSS" /api/series "/api/series/$VXSS" \
		"/api/series/$S000"; do
		get "$_p" >/dev/null
		if grep -qF "$TMP" "$TMP/body"; then
			echo "# $_p: $(grep -oF "$TMP" "$TMP/body" | head -1)"
			return 1
		fi
	done
}
ok "no page or API object names a server path" nopaths
get "/series/$VXSS" >/dev/null
ok "a path outside the known directories: its last part" \
	grep -qF "cannot create &#39;.../build-riscv&#39;: No space left on device" "$TMP/body"
get "/api/series/$S000" >/dev/null
is "$(json "$TMP/body" "d['series']['versions'][0]['results']['build']['riscv']['result']['log']")" \
	riscv.log "a log outside them: its name (the dashboard links it by result)"

# paging
get "/?limit=2" >/dev/null
is "$(grep -c '<tr class="series"' "$TMP/body")" 2 "?limit=2: two rows"
ok "says which" grep -q "5 series versions, 1 to 2 shown" "$TMP/body"
ok "links the next page, with the filters" \
	grep -q 'href="/?state=&amp;author=&amp;q=&amp;limit=2&amp;offset=2">the next 2</a>' "$TMP/body"
get "/?limit=2&offset=4" >/dev/null
is "$(grep -c '<tr class="series"' "$TMP/body")" 1 "the last page: one row"
unlike "$(cat "$TMP/body")" "the next" "and no next page"
get "/?author=vernon&limit=1&offset=1" >/dev/null
ok "a filtered page" grep -q "data-version-id=\"$V003OLD\"" "$TMP/body"
ok "counts what matched" grep -q "2 series versions, 2 to 2 shown" "$TMP/body"
get "/api/series?limit=2&offset=1" >/dev/null
is "$(json "$TMP/body" "(len(d['series']), d['total'], d['series'][0]['id'] == [v['id'] for v in json.load(open('$TMP/api.json'))['series']][1])")" \
	"(2, 5, True)" "/api/series?limit=2&offset=1: the second and third, of five"
# paged by a cursor: "next" until the end, every version once, newest first
is "$(json "$TMP/api.json" "d['next']")" None "one page holds all five: no next"
url="/api/series?limit=2"
: >"$TMP/paged"
pages=0
while [ -n "$url" ] && [ $pages -lt 10 ]; do
	get "$url" >/dev/null
	json "$TMP/body" "' '.join(v['id'] for v in d['series'])" >>"$TMP/paged"
	url=$(json "$TMP/body" "d['next'] or ''")
	pages=$((pages + 1))
done
is "$pages" 3 "limit=2: three pages of 2, 2 and 1"
is "$(tr '\n' ' ' <"$TMP/paged" | sed 's/ $//')" "$(json "$TMP/api.json" "' '.join(v['id'] for v in d['series'])")" \
	"the pages give every version once, in the order of one page"
get "/api/series?author=vernon&limit=1" >/dev/null
like "$(json "$TMP/body" "d['next']")" "author=vernon&cursor=" "next keeps the filters"
is "$(json "$TMP/body" "(len(d['series']), d['total'])")" "(1, 2)" "the author filter, in SQL: 1 of 2"
is "$(get "/api/series?cursor=nonsense")" 400 "a malformed cursor: 400"

is "$(get /series/nosuch)" 404 "an unknown series page: 404"
is "$(get /nowhere)" 404 "an unknown page: 404"
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$WEB/")" 405 "POST: 405"

# logs: only under web.logroot (default core.statedir)
serve_stop
serve_start --config "$CONF"
LOGID=$(sql "SELECT id FROM results WHERE version = '$V000' AND stage = 'build' AND arch = 'riscv'")
is "$(get "/log/$LOGID")" 200 "a log under the log root: 200"
is "$(cat "$TMP/body")" "make[1]: Entering directory
mm/vmscan.c:3871:50: error: boom" "its text"
like "$(cat "$TMP/head")" "Content-Type: text/plain" "as text"
LOGID=$(sql "SELECT id FROM results WHERE version = '$V000' AND stage = 'build' AND arch = 'arm64'")
is "$(get "/log/$LOGID")" 403 "a log outside the log root: 403"
unlike "$(cat "$TMP/body")" "secret" "not shown"
is "$(get /log/999999)" 404 "no such result: 404"
is "$(get /log/..%2f..%2fetc%2fpasswd)" 404 "not a result id: 404"
ok "with the configuration: still no server path" nopaths
get "/series/$VXSS" >/dev/null
ok "a path under core.statedir: relative to it" \
	grep -qF "cannot create &#39;jobs/7/build-riscv&#39;: No space left on device" "$TMP/body"
get "/api/series/$S000" >/dev/null
is "$(json "$TMP/body" "d['series']['versions'][0]['results']['build']['riscv']['result']['log']")" \
	logs/riscv.log "a log under it: relative too"
serve_stop

# read-only: the database file is not changed, a read-only file works
is "$(sha1sum "$DB" | cut -d' ' -f1)" "$sha0" "serving did not change the database"
chmod a-w "$DB"
serve_start
is "$(get /api/series)" 200 "a read-only database file is served"
serve_stop
chmod u+w "$DB"

# the daemon's jobs show up in the metrics
sqlite3 "$DB" "INSERT INTO jobs (kind, version, arch, state, queued) VALUES
	('apply', 'v1', '', 'queued', 0), ('build', 'v1', 'arm64', 'queued', 0),
	('build', 'v1', 'riscv', 'running', 0), ('check', 'v1', '', 'done', 0)"
serve_start
get /metrics >/dev/null
ok "jobs by state" grep -qx 'lorebot_jobs{state="queued"} 2' "$TMP/body"
ok "the job queue" grep -qx 'lorebot_queue_length{queue="jobs"} 2' "$TMP/body"
serve_stop

# while the daemon works: per arch queued, building 4m, booting, and the live log
# (riscv has its infra result already: the result wins)
mkdir -p "$TMP/state/jobs/21"
printf '  CC      mm/a.o\n' >"$TMP/state/jobs/21/build-x86_64.log"
now=$(date +%s)
sqlite3 "$DB" "DELETE FROM jobs; INSERT INTO jobs (kind, version, arch, state, queued, started, log) VALUES
	('build', '$VXSS', 'x86_64', 'running', $now, $((now - 250)), '$TMP/state/jobs/21/build-x86_64.log'),
	('build', '$VXSS', 'arm64', 'queued', $now, NULL, NULL),
	('boot', '$V003', 'x86_64', 'running', $now, $now, NULL)"
JOB=$(sql "SELECT id FROM jobs WHERE version = '$VXSS' AND arch = 'x86_64'")
serve_start --config "$CONF"
get / >/dev/null
cp "$TMP/body" "$TMP/list.html"
like "$(row "$VXSS")" '<span class="n">x86_64</span> <span data-job="running"><span class="b s-run" title="build x86_64: job [0-9]+ running">building 4m</span></span>' \
	"a running build shows as running, with its minutes"
like "$(row "$VXSS")" '<span class="n">arm64</span> <span data-job="queued"><span class="b s-warn" title="build arm64: job [0-9]+ queued">queued</span></span>' \
	"a queued one as queued"
like "$(row "$VXSS")" '<div class="cause">x86_64 building 4m, 1 job queued</div>' \
	"the cause of a version being tested: what runs"
like "$(row "$V003")" '<span class="n">x86_64</span> <span class="b s-good"[^>]*>ok</span> <span class="b s-good"' \
	"a result recorded wins over a job (003's boot is done)"
get "/series/$VXSS" >/dev/null
ok "the series page links the live log" grep -q "<a href=\"/joblog/$JOB\">live build log</a>" "$TMP/body"
is "$(get "/joblog/$JOB")" 200 "/joblog/<job>: 200"
is "$(cat "$TMP/body")" "  CC      mm/a.o" "the log as it is now"
is "$(get /joblog/999999)" 404 "no such job: 404"
# the queue page: what 'lorebot status' shows, running first, with the live log
is "$(get /queue)" 200 "/queue: 200"
ok "it counts" grep -q '<p class="muted">2 running, 1 queued</p>' "$TMP/body"
is "$(grep -o '<tr data-job="[a-z]*"><td>[0-9]*</td><td>[a-z]*</td><td>[a-z0-9_]*</td>' "$TMP/body" |
	sed 's/<[^>]*>/ /g' | tr -s ' ' | tr '\n' ';')" \
	" $JOB build x86_64 ; $(sql "SELECT id FROM jobs WHERE version = '$V003'") boot x86_64 ; $(sql "SELECT id FROM jobs WHERE version = '$VXSS' AND arch = 'arm64'") build arm64 ;" \
	"running jobs first, then the queued"
ok "a running job, where it runs, its live log" \
	grep -q "building 4m</span></td><td>local</td><td><a href=\"/joblog/$JOB\">live log</a>" "$TMP/body"
ok "the series it is for" grep -q "<a href=\"/series/4cd35562ac2e\">mm: &lt;script&gt;" "$TMP/body"
ok "the page header links it" grep -q '<a href="/queue">queue</a>' "$TMP/body"
# a job of the Slurm executor: its Slurm job and node
sqlite3 "$DB" "UPDATE jobs SET slurm_job = 31, node = 'node3' WHERE version = '$V003'"
sqlite3 "$DB" "UPDATE jobs SET slurm_job = 32 WHERE version = '$VXSS' AND arch = 'arm64'"
get /queue >/dev/null
ok "a job on Slurm: its job id and node" grep -q '</span></td><td>slurm job 31 on node3</td>' "$TMP/body"
ok "one queued in Slurm: its job id" grep -q 'queued</span></td><td>slurm job 32</td>' "$TMP/body"
serve_stop
sqlite3 "$DB" "DELETE FROM jobs WHERE version IN ('$VXSS', '$V003')"

# the .config of a build, for the recipe without lorebot
mkdir -p "$TMP/state/jobs/22/build/x86_64"
printf 'CONFIG_MMU=y\n' >"$TMP/state/jobs/22/build/x86_64/config"
$PY - "$RESULTS/build-003.json" "$TMP/state/jobs/22/build/x86_64/config" >"$TMP/b3.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["archs"][0]["config_file"] = sys.argv[2]
json.dump(d, sys.stdout)
EOF
record "$V003" build "$TMP/b3.json"
CFG=$(sql "SELECT id FROM results WHERE version = '$V003' AND stage = 'build' AND arch = 'x86_64'")
serve_start --config "$CONF"
get "/series/$S003" >/dev/null
ok "the series page links the .config of a build" grep -q "<a href=\"/config/$CFG\">.config</a>" "$TMP/body"
is "$(get "/config/$CFG")" 200 "/config/<result>: 200"
is "$(cat "$TMP/body")" "CONFIG_MMU=y" "the .config it was built with"
is "$(get /config/999999)" 404 "no such result: 404"
serve_stop
record "$V003" build "$RESULTS/build-003.json"

# a base the bot lacks: not red, and the cause says so
record "$V000" apply "$RESULTS/apply-000-base-unknown.json"
serve_start
get /api/series >/dev/null
is "$(json "$TMP/body" "[(v['state'], v['cause']) for v in d['series'] if v['id'] == '$V000'][0]")" \
	"('base-unknown', 'base unknown: efecab401cb1 is not in the tree')" "base-unknown: the cause names the base"
get / >/dev/null
cp "$TMP/body" "$TMP/list.html"
like "$(row "$V000")" '<div class="cause">base unknown: efecab401cb1 is not in the tree</div>' "on the index"
like "$(row "$V000")" '<span class="b s-mute" title="base-unknown">base-unknown</span>' "muted, not red"
get "/series/$S000" >/dev/null
like "$(why "$TMP/body")" '^<div class="why s-mute">.*<pre>base-commit efecab401cb15fd3bb9bc05990609acb6b267ff2 is not in the repository; .*on mm-new instead: patch 7/9 does not apply' \
	"the why box: what is missing and what was tried instead"
serve_stop

# the base the series names was there and the series did not apply to
# it: apply-failed on the list and in /metrics too (they read the results
# without their documents, but for apply's base)
"$PY" - "$RESULTS/apply-000-base-unknown.json" "$TMP/apply-known.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["base"].update(name="base-commit", sha=d["base"]["base_commit"], base_commit_unknown=False,
                 reason="the base-commit")
json.dump(d, open(sys.argv[2], "w"))
EOF
record "$V000" apply "$TMP/apply-known.json"
serve_start
get /api/series >/dev/null
is "$(json "$TMP/body" "[v['state'] for v in d['series'] if v['id'] == '$V000'][0]")" \
	apply-failed "a failure on the base the series names: apply-failed on the list"
get /metrics >/dev/null
ok "and in /metrics" grep -qx 'lorebot_series_versions{state="base-unknown"} 0' "$TMP/body"
serve_stop

# a boot regression bisected to its patch, and one whose first bad patch
# only changes comments: the series page says which patch, in how many
# boots, how sure, and that the second is suspect (issue 41)
cat >"$TMP/boot-bisected.json" <<'JSON'
{"archs": [{"arch": "arm64", "status": "regressions", "tests": [], "flaky": [],
  "findings": [
   {"kind": "kernel-warning", "new": true, "title": "WARNING in do_madvise",
    "message": "new kernel warning: WARNING in do_madvise (mm/madvise.c:968) during mm/madv_populate",
    "where": "mm/madvise.c:968", "test": "mm/madv_populate", "patch": 2,
    "confirm": {"tip": {"runs": 5, "bad": 5}, "base": {"runs": 10, "bad": 0}, "runs": 5},
    "culprit": {"state": "found", "patch": 2, "subject": "mm/madvise: warn when populating",
                "suspect": false, "boots": 3}},
   {"kind": "kernel-warning", "new": true, "title": "WARNING in madvise_populate",
    "message": "new kernel warning: WARNING in madvise_populate (mm/madvise.c:901) during mm/madv_populate",
    "where": "mm/madvise.c:901", "test": "mm/madv_populate",
    "confirm": {"tip": {"runs": 5, "bad": 5}, "base": {"runs": 10, "bad": 0}, "runs": 5},
    "culprit": {"state": "found", "patch": 4, "subject": "mm/madvise: say more at the top",
                "suspect": true, "boots": 3}}]}]}
JSON
record "$V003" boot "$TMP/boot-bisected.json"
serve_start
get "/series/$S003" >/dev/null
ok "the series page: the first bad patch, by bisection, in how many boots" \
	grep -q 'first bad patch 2, by bisection in 3 boots; 5 of 5 runs on the tip, 0 of 10 on the base' "$TMP/body"
ok "a comment-only first bad patch is suspect, not blamed" \
	grep -q 'bisection points at patch 4, which only changes comments or documentation: suspect' "$TMP/body"
serve_stop

# usage
lorebot --db "$TMP/none.db" serve --listen 127.0.0.1:0 >/dev/null 2>"$TMP/err"
is "$?" 2 "no database: exit 2"
lorebot --db "$DB" serve --listen nonsense >/dev/null 2>"$TMP/err"
is "$?" 3 "a bad listen address: exit 3"
like "$(cat "$TMP/err")" "bad listen address 'nonsense'" "says so"
done_testing

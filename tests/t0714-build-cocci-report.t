#!/bin/sh
# Coccinelle's style rules in the reply: counted, never mailed, like
# checkpatch; its bug classes mailed like a compiler's new warning.  From
# the build results of lorebot build itself (tests/fixtures/results/
# build-cocci.json: the series of tests/fixtures/build/cocci-zalloc built
# for x86_64 with build.coccicheck, as t0526 does: a zalloc-simple finding,
# style, and a doubletest one, a bug class).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

# the patch as the list carried it
$PY - "$FIXTURES/build/cocci-zalloc" "$TMP/cocci.mbox" "$TMP/style.mbox" <<'EOF'
import email, glob, mailbox, sys
for box, mid in ((sys.argv[2], "cocci-1"), (sys.argv[3], "style-1")):
    out = mailbox.mbox(box)
    for path in sorted(glob.glob(sys.argv[1] + "/*.patch")):
        m = email.message_from_binary_file(open(path, "rb"))
        m["To"] = "linux-mm@kvack.org"
        m["Message-ID"] = "<%s@example.org>" % mid
        if mid == "style-1":
            m.replace_header("Subject", "[PATCH] mm/util: memdup_user_nul() zeroes it")
        out.add(m)
    out.flush()
EOF
fill_db "$TMP/cocci.mbox" "$TMP/style.mbox"
VB=cocci-1@example.org
VS=style-1@example.org

# the same findings on arm64 (one finding, however many arches show it);
# the style-only build: the doubletest finding gone, nothing else changed
$PY - "$RESULTS/build-cocci.json" "$TMP" <<'EOF'
import copy, json, sys
d = json.load(open(sys.argv[1]))
x86 = d["archs"][0]
arm = copy.deepcopy(x86)
arm["arch"] = "arm64"
both = copy.deepcopy(d)
both["archs"] = [x86, arm]
json.dump(both, open(sys.argv[2] + "/both.json", "w"))
style = copy.deepcopy(both)
for a in style["archs"]:
    a["findings"] = [f for f in a["findings"] if f["option"] != "tests/doubletest"]
    a["status"] = "ok"
json.dump(style, open(sys.argv[2] + "/style.json", "w"))
EOF
echo '{"findings": []}' >"$TMP/none.json"
for v in $VB $VS; do
	record "$v" apply "$RESULTS/apply-one.json"
	record "$v" check "$TMP/none.json"
	record "$v" boot "$RESULTS/boot-003.json"
done
record $VB build "$TMP/both.json"
record $VS build "$TMP/style.json"

is "$(sql "SELECT arch || ' ' || status || ': ' || summary FROM results WHERE version = '$VB' AND stage = 'build' ORDER BY arch")" \
	"arm64 warnings: 1 new warning, 1 style finding; compiled 3 of 3 changed lines (100%)
x86_64 warnings: 1 new warning, 1 style finding; compiled 3 of 3 changed lines (100%)" \
	"the summary counts the style finding apart from the warning"
is "$(sql "SELECT DISTINCT status || ': ' || summary FROM results WHERE version = '$VS' AND stage = 'build'")" \
	"ok: ok, 1 style finding; compiled 3 of 3 changed lines (100%)" \
	"a style finding alone: the build is ok, and says it has one"

report_conf reply.clean=true build.arch=x86_64 build.arch=arm64
dry_split
M=$TMP/mail-cocci-1
is "$(head -1 "$M")" build "a build reply: doubletest's warning"
ok "doubletest's finding is mailed, with its rule" grep -q \
	'^>> mm/util.c:[0-9]*:[0-9]*: warning: duplicated argument to && or || \[tests/doubletest\]' "$M"
is "$(grep -c 'kzalloc should be used' "$M")" 0 "zalloc-simple's is not mailed"
ok "it is counted, once for both arches, with where to see it" grep -q \
	'^1 style finding (Coccinelle) is not mailed: see$' "$M"
is "$(grep -c '^vim +' "$M")" 1 "the code of the finding once, though two arches show it"
is "$(grep -c '^        make ARCH=x86_64 O=build C=2 CHECK=\$PWD/scripts/coccicheck MODE=report mm/util.o$' "$M")" 2 \
	"the recipe without lorebot has the make line that shows the findings (per arch)"

S=$TMP/mail-style-1
is "$(head -1 "$S")" clean "a style finding alone: the clean reply (reply.clean)"
is "$(grep -c 'kzalloc should be used' "$S")" 0 "it does not mail the style finding"
ok "it counts it" grep -q '^1 style finding (Coccinelle) is not mailed: see$' "$S"

# reply.style = mail: mailed like the rest
report_conf reply.clean=true reply.style=mail build.arch=x86_64 build.arch=arm64
dry
ok "reply.style=mail: zalloc-simple's finding is mailed" grep -q \
	'kzalloc should be used for p, instead of kmalloc/memset \[api/alloc/zalloc-simple\]' "$TMP/dry.mbox"

# the per-patch checks patchwork, b4 and the dashboard read: the style
# finding only counted
serve_start --config "$CONF"
curl -sf "$WEB/api/checks/$VS" >"$TMP/checks.json"
is "$(json "$TMP/checks.json" "[(c['context'], c['state'], c['description']) for c in d['checks'] if c['context'] == 'lorebot-build-x86_64']")" \
	"[('lorebot-build-x86_64', 'success', 'builds, no new warning (small config) (1 style finding not counted)')]" \
	"a style finding alone: success, counted"

done_testing

#!/bin/sh
# A report's permanent page (issue 44): a reply's Closes: names /r/<id>
# on the dashboard, which shows exactly what was mailed, with the series'
# patches, the .config of each arch and the record `lorebot reproduce`
# reads; the page is the same bytes after the next version's reply, a
# rerun of the version's build (whose .config is gone from disk by then)
# and `lorebot db rebuild`; the tags the reply suggests keep checkpatch's
# BAD_REPORTED_BY_LINK quiet on a fix that carries them.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

R=$FIXTURES/report
# a two-patch series, v1 and v2, as git send-email posts it
$PY - "$TMP/two" <<'EOF'
import sys
for v, date in ((1, "Mon, 02 Feb 2026 10:00:00 +0000"), (2, "Tue, 03 Feb 2026 10:00:00 +0000")):
    tag = "PATCH" if v == 1 else "PATCH v%d" % v
    out = open("%s-v%d.mbox" % (sys.argv[1], v), "w")
    cover = "<two-v%d-0@lorebot.invalid>" % v
    for n in range(3):
        subject = "mm: frob" if n == 0 else "mm: frob part %d" % n
        out.write("From mboxrd@z Thu Jan  1 00:00:00 1970\n"
                  "From: Ann Author <ann@example.org>\nTo: linux-mm@kvack.org\n"
                  "Date: %s\nSubject: [%s %d/2] %s\nMessage-ID: <two-v%d-%d@lorebot.invalid>\n"
                  % (date, tag, n, subject, v, n))
        if n:
            out.write("In-Reply-To: %s\nReferences: %s\n" % (cover, cover))
            out.write("\nPart %d of the frob.\n\nSigned-off-by: Ann Author <ann@example.org>\n"
                      "---\n mm/frob.c | 1 +\n\ndiff --git a/mm/frob.c b/mm/frob.c\n"
                      "--- a/mm/frob.c\n+++ b/mm/frob.c\n@@ -40,2 +40,3 @@ void frob(void)\n"
                      " {\n+\tint frob_count%d;\n }\n-- \n2.39.5\n\n" % (n, n))
        else:
            out.write("\nThe frob, version %d.\n\nbase-commit: "
                      "065ab801c937ee62d3105e05a491b7721d8ed990\n-- \n2.39.5\n\n" % v)
EOF
[ "$(cat "$TMP"/two-v*.mbox | grep -c "^From mboxrd")" = 6 ] ||
	{ echo "Bail out! cannot make the series"; exit 1; }
fill_db "$TMP/two-v1.mbox"
V1=two-v1-0@lorebot.invalid
V2=two-v2-0@lorebot.invalid
printf 'CONFIG_64BIT=y\nCONFIG_ARM64=y\n# the arm64 .config of v1\n' >"$TMP/arm64.config"
printf 'CONFIG_64BIT=y\nCONFIG_X86_64=y\n' >"$TMP/x86_64.config"
sed "s|@DIR@|$TMP|g" "$R/build-two.json" >"$TMP/build.json"
tested() {
	record "$1" apply "$R/apply-two.json" &&
	record "$1" check "$R/check-none.json" &&
	record "$1" build "$TMP/build.json" ||
		{ echo "Bail out! cannot record the results of $1"; exit 1; }
}
WEB_PORT=$(free_port)
report_conf build.arch=x86_64 build.arch=arm64 boot.enable=false \
	core.dashboardurl="http://127.0.0.1:$WEB_PORT/"

tested "$V1"
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r1.json" 2>"$TMP/r1.err"
is "$?" 0 "v1: lorebot reply"
M1=$(sql "SELECT msgid FROM replies WHERE version = '$V1'")
ID=${M1%%-lorebot@*}
like "$ID" '^[0-9]{14}\.[0-9a-z]{12}$' "the report id is the reply's Message-ID up to -lorebot@ ($ID)"
is "$(json "$TMP/r1.json" "[r['report'] for r in d['replies']]")" "['$ID']" \
	"lorebot reply --json names it"
MAIL=$(grep -l "^Message-ID: <$M1>" "$TMP"/state/outbox/new/*)
sed -n '/^$/,$p' "$MAIL" >"$TMP/body1.txt"
ok "Closes: the report's permanent page" \
	grep -qx "| Closes: http://127.0.0.1:$WEB_PORT/r/$ID" "$TMP/body1.txt"
ok "the recipe: lorebot reproduce with that URL" \
	grep -qx "        lorebot reproduce --repo linux http://127.0.0.1:$WEB_PORT/r/$ID" "$TMP/body1.txt"
ok "and, without lorebot, the .config from the report" \
	grep -qx "        mkdir -p build && curl -o build/.config http://127.0.0.1:$WEB_PORT/r/$ID/config/arm64" \
	"$TMP/body1.txt"
ok "the signature links the report" grep -qx "this report: http://127.0.0.1:$WEB_PORT/r/$ID" \
	"$TMP/body1.txt"

serve_start --config "$CONF"
page() {
	curl -s -o "$2" -w '%{http_code}' "$WEB/r/$ID$1"
}
is "$(page "" "$TMP/p1.html")" 200 "/r/<id>: 200"
$PY - "$TMP/p1.html" "$MAIL" <<'EOF' >"$TMP/p1.check"
import html, re, sys
page = open(sys.argv[1]).read()
mail = open(sys.argv[2]).read()
pre = re.search(r"<pre>(.*)</pre>", page, re.S).group(1)
print("same" if html.unescape(pre) == mail else "differs")
EOF
is "$(cat "$TMP/p1.check")" same "the page shows the mail as it was filed, byte for byte"
like "$(cat "$TMP/p1.html")" "href=\"/r/$ID/config/arm64\"" "it links the arm64 .config"
is "$(page /config/arm64 "$TMP/c.txt")" 200 "/r/<id>/config/arm64: 200"
ok "the .config the build used" cmp -s "$TMP/c.txt" "$TMP/arm64.config"
is "$(page /config/riscv "$TMP/c.txt")" 404 "no riscv in this report: 404"
is "$(page /mbox "$TMP/s.mbox")" 200 "/r/<id>/mbox: 200"
is "$(grep -c '^Message-ID: <two-v1-[12]@lorebot.invalid>' "$TMP/s.mbox")" 2 \
	"the mbox: the two patches of v1"
is "$(page /json "$TMP/p1.json")" 200 "/r/<id>/json: 200"
is "$(json "$TMP/p1.json" "(d['report'], d['kind'], d['version'], d['base']['sha'][:12], [a['arch'] for a in d['archs']])")" \
	"('$ID', 'build', '$V1', '065ab801c937', ['arm64'])" "the record: id, kind, version, base, archs"
is "$(json "$TMP/p1.json" "[f['text'] for f in d['findings']]")" \
	"[\"mm/frob.c:41:6: warning: unused variable 'frob_count' [-Wunused-variable]\"]" \
	"the finding, as the mail gives it"
ok "which is the mail's line" grep -qx ">> mm/frob.c:41:6: warning: unused variable 'frob_count' \[-Wunused-variable\]" \
	"$TMP/body1.txt"
is "$(page x "$TMP/x")" 404 "a report id that is not one: 404"
is "$(curl -s -o /dev/null -w '%{http_code}' "$WEB/r/..%2Fetc")" 404 "nor a path"
like "$(curl -s "$WEB/series/$V1")" "href=\"/r/$ID\"" "the series page links the permanent page"

# v2 gets its own reply; v1's build is run again and gives something else,
# and the file its .config was in is gone
lorebot --db "$DB" fetch --mbox "$TMP/two-v2.mbox" >/dev/null 2>&1
is "$(sql "SELECT superseded_by FROM versions WHERE id = '$V1'")" "$V2" "v2 supersedes v1"
tested "$V2"
lorebot --config "$CONF" --db "$DB" reply >/dev/null 2>&1
is "$(sql "SELECT count(*) FROM replies")" 2 "v2: its own reply"
rm "$TMP/arm64.config"
sed "s/frob_count/frob_total/" "$TMP/build.json" >"$TMP/rerun.json"
record "$V1" build "$TMP/rerun.json"
page "" "$TMP/p2.html" >/dev/null
ok "after v2's reply and a rerun of v1: the page is the same bytes" cmp -s "$TMP/p1.html" "$TMP/p2.html"
page /config/arm64 "$TMP/c2.txt" >/dev/null
printf 'CONFIG_64BIT=y\nCONFIG_ARM64=y\n# the arm64 .config of v1\n' >"$TMP/arm64.want"
ok "and the .config is still the one v1 was built with" cmp -s "$TMP/c2.txt" "$TMP/arm64.want"
page /json "$TMP/p2.json" >/dev/null
ok "and its record too" cmp -s "$TMP/p1.json" "$TMP/p2.json"
serve_stop
lorebot --db "$DB" db rebuild >/dev/null 2>&1
is "$?" 0 "lorebot db rebuild"
serve_start --config "$CONF"
page "" "$TMP/p3.html" >/dev/null
ok "after db rebuild: the same bytes" cmp -s "$TMP/p1.html" "$TMP/p3.html"
serve_stop

# the tags the reply suggests, on a fix: checkpatch's own verdict
MM=$(mm_repo 2>/dev/null)
if [ -n "$MM" ]; then
	git --git-dir="$MM" show mm-new:scripts/checkpatch.pl >"$TMP/checkpatch.pl"
	git --git-dir="$MM" show mm-new:scripts/spelling.txt >"$TMP/spelling.txt"
	git --git-dir="$MM" show mm-new:scripts/const_structs.checkpatch \
		>"$TMP/const_structs.checkpatch"
	{
		printf 'From: Ann Author <ann@example.org>\nSubject: [PATCH] mm: drop the unused frob_count\n\n'
		printf 'frob() declares frob_count and never uses it.\n\n'
		sed -n 's/^| \(Reported-by: .*\)$/\1/p; s/^| \(Closes: .*\)$/\1/p' "$TMP/body1.txt"
		printf 'Signed-off-by: Ann Author <ann@example.org>\n---\n'
		printf 'diff --git a/mm/frob.c b/mm/frob.c\n--- a/mm/frob.c\n+++ b/mm/frob.c\n'
		printf '@@ -40,3 +40,2 @@ void frob(void)\n {\n-\tint frob_count;\n }\n'
	} >"$TMP/fix.patch"
	is "$(grep -c '^Reported-by: \|^Closes: ' "$TMP/fix.patch")" 2 "the fix carries both tags"
	GIT_DIR=/nonexistent perl "$TMP/checkpatch.pl" --no-tree --show-types --terse \
		"$TMP/fix.patch" >"$TMP/cp.out" 2>&1
	is "$(grep -c 'BAD_REPORTED_BY_LINK\|UNKNOWN_COMMIT_ID\|BAD_LINK' "$TMP/cp.out")" 0 \
		"checkpatch: no BAD_REPORTED_BY_LINK on it"
	# and checkpatch does say it when the Closes: is not there
	sed '/^Closes: /d' "$TMP/fix.patch" >"$TMP/nofix.patch"
	GIT_DIR=/nonexistent perl "$TMP/checkpatch.pl" --no-tree --show-types --terse \
		"$TMP/nofix.patch" >"$TMP/cp2.out" 2>&1
	like "$(cat "$TMP/cp2.out")" BAD_REPORTED_BY_LINK "(without the Closes: it would)"
else
	skip "no kernel tree for checkpatch.pl (ci/mm-tree.sh)" 3
fi

done_testing

#!/bin/sh
# Reply policies: reply.to, reply.ignore, reply.rfc, reply.clean,
# reply.mode off; incomplete series; templates from reply.templates and
# a broken template
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

L=$FIXTURES/lore
# an RFC patch and an incomplete 004 (patch 3/4 never arrived)
patch_mail 'Rita Rfc <rita@example.org>' '[RFC PATCH] mm: try something' rfc-1@example.org \
	'Wed, 4 Mar 2026 09:00:00 +0000' >"$TMP/rfc.mbox"
$PY - "$L/004_476fa21b8430df59.mbox" "$TMP/partial.mbox" <<'EOF'
import mailbox, sys
out = mailbox.mbox(sys.argv[2])
for m in mailbox.mbox(sys.argv[1]):
    if "20250115033807.46664-4-21cnbao@gmail.com" not in m["Message-ID"]:
        out.add(m)
out.flush()
EOF
fill_db "$L/000_73a05b4700ab1a7a.mbox" "$TMP/partial.mbox" "$TMP/rfc.mbox"
record "$V000" apply "$RESULTS/apply-000.json"
record "$V000" check "$RESULTS/check-000.json"
record "$V004" apply "$RESULTS/apply-004.json"
record "$V004" check "$RESULTS/check-004.json"
cat >"$TMP/one.json" <<'EOF'
{"findings": [{"rule": "r", "severity": "warning", "patch": 1, "file": "mm/a.c", "line": 2,
  "message": "b is not used"}]}
EOF
record_tested rfc-1@example.org
record rfc-1@example.org check "$TMP/one.json"
db_keep
nmails() {
	grep -c '^From .* Thu Jan  1 00:00:00 1970$' "$TMP/dry.mbox"
}

report_conf
dry
is "$(nmails)" 1 "one reply: 004's (000 is not built yet, the RFC series is skipped)"
is "$(grep -c "^In-Reply-To: <$V000>" "$TMP/dry.mbox")" 0 \
	"nothing about 000 before its builds and boots ended"
unlike "$(cat "$TMP/dry.mbox")" "rfc-1@example.org" "nothing about the RFC series"
like "$(cat "$TMP/dry.err")" "check reply for 'rfc-1@example.org' would be skipped: RFC series" \
	"--dry-run says what it would skip"
ok "Cc everyone (reply.to = all, the default)" grep -q '^Cc: ' "$TMP/dry.mbox"
ok "an incomplete series says so" grep -qx \
	"This series was tested incomplete: 3 of its 4 patches had arrived." "$TMP/dry.mbox"
lorebot --config "$CONF" --db "$DB" reply --outbox "$TMP/out" --json >"$TMP/r.json" 2>/dev/null
is "$(sql "SELECT state, reason FROM replies WHERE version = 'rfc-1@example.org'")" \
	"skipped|RFC series (reply.rfc is off)" "the RFC reply is recorded as skipped"
is "$(ls "$TMP/out/new" | wc -l | tr -d ' ')" 1 "one file"

fresh
report_conf reply.rfc=true reply.to=author
dry
is "$(nmails)" 2 "reply.rfc=true: the RFC series gets its reply"
ok "to its author" grep -q '^To: Rita Rfc <rita@example.org>$' "$TMP/dry.mbox"
is "$(grep -c '^Cc:' "$TMP/dry.mbox")" 0 "reply.to=author: no Cc at all"

fresh
report_conf reply.ignore=@oppo.com reply.ignore=akpm@linux-foundation.org
dry
unlike "$(sed '/^$/q' "$TMP/dry.mbox")" "v-songbaohua@oppo.com|akpm@linux-foundation.org" \
	"reply.ignore: an @domain and an address are left out of Cc"
ok "the other recipients stay" grep -q 'linux-mm@kvack.org' "$TMP/dry.mbox"
fresh
report_conf reply.ignore=21cnbao@gmail.com
lorebot --config "$CONF" --db "$DB" reply --outbox "$TMP/out2" --json >/dev/null 2>&1
is "$(sql "SELECT kind, state, reason FROM replies WHERE version = '$V004' ORDER BY kind" | tr '\n' ' ')" \
	"apply|skipped|the author is on reply.ignore " \
	"an ignored author gets nothing"

fresh
report_conf reply.mode=off
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r.json" 2>/dev/null
is "$(sql "SELECT DISTINCT state || ': ' || reason FROM replies")" "skipped: reply mode is off" \
	"reply.mode=off: every reply skipped"
ok "no outbox made" test ! -e "$TMP/state/outbox"
report_conf
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r.json" 2>/dev/null
is "$(json "$TMP/r.json" "(d['composed'], d['sent'])")" "(0, 0)" \
	"switching it on later does not mail what was skipped"

# reply.clean: everything passed
fresh
$PY - "$RESULTS/apply-000.json" >"$TMP/apply-rfc.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["patches"] = d["patches"][:1]
d["patches"][0]["subject"] = "mm: try something"
d["branch"] = "refs/heads/lorebot/rfc/v1"
json.dump(d, sys.stdout)
EOF
record rfc-1@example.org apply "$TMP/apply-rfc.json"
echo '{"findings": []}' >"$TMP/none.json"
record rfc-1@example.org check "$TMP/none.json"
record rfc-1@example.org build "$RESULTS/build-003.json"
record rfc-1@example.org boot "$RESULTS/boot-003.json"
report_conf reply.rfc=true
dry
unlike "$(cat "$TMP/dry.mbox")" "X-Lorebot-Outcome: clean" "a clean result is not mailed by default"
report_conf reply.rfc=true reply.clean=true
dry
ok "reply.clean=true: it is" grep -q "X-Lorebot-Outcome: clean" "$TMP/dry.mbox"
ok "saying nothing was found" grep -q "lorebot tested this series and found nothing to report:" "$TMP/dry.mbox"
ok "with a line per stage" grep -q "^  build  riscv   ok$" "$TMP/dry.mbox"
ok "Re: the patch (no cover letter)" grep -q '^Subject: Re: \[RFC PATCH\] mm: try something$' "$TMP/dry.mbox"
record rfc-1@example.org boot "$RESULTS/boot-000.json"
dry
unlike "$(cat "$TMP/dry.mbox")" "X-Lorebot-Outcome: clean" "a regression is not clean"
ok "it is a boot reply instead" grep -q "X-Lorebot-Outcome: boot" "$TMP/dry.mbox"

# templates: reply.templates, and a template with an unknown variable
fresh
mkdir -p "$TMP/tpl"
cp "$LOREBOT_SRC"/templates/reply-*.txt "$TMP/tpl/"
printf 'Dear ${greeting}\n\nCustom wording: ${findings}\n-- \n${bot_name}\n' >"$TMP/tpl/reply-build.txt"
printf '${greeting}\n\n${nosuchvar}\n' >"$TMP/tpl/reply-apply.txt"
record "$V000" build "$RESULTS/build-000.json"
record "$V000" boot "$RESULTS/boot-000.json"
report_conf reply.templates="$TMP/tpl"
lorebot --config "$CONF" --db "$DB" reply --outbox "$TMP/out3" --json >"$TMP/r.json" 2>"$TMP/r.err"
is "$?" 3 "a broken template: exit 3"
like "$(cat "$TMP/r.err")" "cannot compose the apply reply for '$V004': reply-apply.txt:3: unknown variable 'nosuchvar'" \
	"the error names the template, line and variable"
is "$(json "$TMP/r.json" "(d['composed'], d['errors'])")" "(2, 1)" \
	"the other replies are composed (the RFC one to be skipped)"
ok "the configured template is used" grep -q '^Custom wording: riscv (1 error):$' "$TMP"/out3/new/*
is "$(sql "SELECT count(*) FROM replies WHERE kind = 'apply'")" 0 "nothing recorded for the broken one"
done_testing

#!/bin/sh
# Header injection: names, subjects and addresses from hostile mail never
# become header lines of a reply; non-ASCII is RFC 2047-encoded
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

# two one-patch series with hostile or non-ASCII headers
$PY - "$TMP/hostile.mbox" "$FIXTURES/reply/one-line.diff" <<'EOF'
import sys
diff = open(sys.argv[2], "rb").read()
msgs = [
    b"From: =?utf-8?q?Eve_Evil=0D=0ABcc=3A_spy=40evil.example?= <eve@evil.example>\n"
    b"To: linux-mm@kvack.org, \"Bob =?utf-8?q?=0A?=Bcc: x@evil.example\" <bob@example.org>\n"
    b"Cc: =?utf-8?b?WsO2w6sgw5xuw69jw7Zkw6k=?= <zoe@example.org>,\n"
    b" \"Mallory, the \\\"quoted\\\"\" <mallory@example.org>, not-an-address,\n"
    b" <weird@@example.org>, <spa ce@example.org>\n"
    b"Subject: =?utf-8?q?=5BPATCH=5D_mm:_fix_=0D=0ABcc:_victim@evil.example_<script>?=\n"
    b"Date: Mon, 2 Mar 2026 10:00:00 +0000\n"
    b"Message-ID: <inj-1@example.org>\n"
    b"References: <bad id@example.org> <ok-ref@example.org>\n"
    b"MIME-Version: 1.0\n"
    b"Content-Type: text/plain; charset=utf-8\n"
    b"Content-Transfer-Encoding: 8bit\n"
    b"\n"
    b"Fix it.\n\nSigned-off-by: Eve <eve@evil.example>\n" + diff,
    "From: =?utf-8?q?Zo=C3=AB_=C3=9Cn=C3=AFcode?= <zoe@example.org>\n"
    "To: linux-mm@kvack.org\n"
    "Subject: =?utf-8?b?W1BBVENIXSBtbTogZml4IFpvw6sncyBuYcOvdmUgYnVnIOKAlCDigJxxdW90ZXPigJ0=?=\n"
    "Date: Mon, 2 Mar 2026 11:00:00 +0000\n"
    "Message-ID: <utf8-1@example.org>\n"
    "MIME-Version: 1.0\n"
    "Content-Type: text/plain; charset=utf-8\n"
    "Content-Transfer-Encoding: 8bit\n"
    "\n"
    "Fix it, naïvely.\n\nSigned-off-by: Zoë Ünïcode <zoe@example.org>\n".encode() + diff,
]
with open(sys.argv[1], "wb") as f:
    for m in msgs:
        f.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m + b"\n")
EOF
fill_db "$TMP/hostile.mbox"
lorebot --db "$DB" series --json >"$TMP/series.json"
is "$(json "$TMP/series.json" "sorted(v['id'] for v in d['series'])")" \
	"['inj-1@example.org', 'utf8-1@example.org']" "two versions"
cat >"$TMP/check.json" <<'EOF'
{"findings": [{"rule": "x", "severity": "warning", "patch": 1, "file": "mm/a.c", "line": 2,
  "message": "an int named b\nBcc: finding@evil.example"}]}
EOF
record_tested inj-1@example.org utf8-1@example.org
record inj-1@example.org check "$TMP/check.json"
record utf8-1@example.org check "$TMP/check.json"
report_conf
lorebot --config "$CONF" --db "$DB" reply --outbox "$TMP/out" --json >"$TMP/r.json" 2>"$TMP/r.err"
is "$(json "$TMP/r.json" "(d['composed'], d['sent'], d['errors'])")" "(2, 2, 0)" "two replies filed"

F=$(grep -l '^In-Reply-To: <inj-1@example.org>' "$TMP"/out/new/*)
$PY "$LOREBOT_SRC/tests/mail-summary.py" "$F" >"$TMP/h.json"
is "$(json "$TMP/h.json" "d['header_names']")" \
	"['From', 'To', 'Cc', 'Subject', 'Date', 'Message-ID', 'In-Reply-To', 'References', 'MIME-Version', 'Content-Type', 'Content-Transfer-Encoding', 'Content-Disposition', 'Auto-Submitted', 'X-Lorebot-Outcome']" \
	"exactly the headers lorebot writes: no Bcc or other header got in"
is "$(sed '/^$/q' "$F" | grep -ciE '^[[:space:]]*bcc:')" 0 "no line of the header starts with Bcc:"
is "$(sed '/^$/q' "$F" | grep -vE '^(From|To|Cc|Subject|Date|Message-ID|In-Reply-To|References|MIME-Version|Content-Type|Content-Transfer-Encoding|Content-Disposition|Auto-Submitted|X-Lorebot-Outcome): |^[[:space:]]|^$' | wc -l | tr -d ' ')" \
	0 "every header line is a known header or a continuation"
is "$(json "$TMP/h.json" "d['subject']")" "Re: [PATCH] mm: fix Bcc: victim@evil.example <script>" \
	"the Subject's encoded CR LF became a blank: text, not a header"
is "$(json "$TMP/h.json" "(d['to'], d['to_names'])")" \
	"(['eve@evil.example'], ['Eve Evil Bcc: spy@evil.example'])" \
	"the sender's encoded CR LF stays inside the display name"
is "$(json "$TMP/h.json" "d['cc']")" \
	"['linux-mm@kvack.org', 'bob@example.org', 'zoe@example.org', 'mallory@example.org']" \
	"Cc: the valid addresses only (no not-an-address, weird@@, 'spa ce'), bot excluded"
is "$($PY -c 'import email, email.policy, email.utils, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
print([n for n, e in email.utils.getaddresses([str(m["Cc"])])])' "$F")" \
	"['', 'Bob Bcc: x@evil.example', 'Zöë Ünïcödé', 'Mallory, the \"quoted\"']" \
	"display names survive as names: quoted, encoded"
is "$(json "$TMP/h.json" "(d['references'][-1], all(' ' not in r for r in d['references']))")" \
	"('inj-1@example.org', True)" "References: ends with the patch, no id with a blank"
is "$(json "$TMP/h.json" "d['ascii_headers']")" True "the header is ASCII"
ok "a finding's message with a newline stays in the body" grep -q '^Bcc: finding@evil.example' "$F"

G=$(grep -l '^In-Reply-To: <utf8-1@example.org>' "$TMP"/out/new/*)
$PY "$LOREBOT_SRC/tests/mail-summary.py" "$G" >"$TMP/u.json"
is "$(json "$TMP/u.json" "d['subject']")" "Re: [PATCH] mm: fix Zoë's naïve bug — “quotes”" \
	"a UTF-8 subject decodes back to itself"
is "$(json "$TMP/u.json" "d['ascii_headers']")" True "written as RFC 2047 encoded words"
like "$(sed -n '/^Subject:/,/^Date:/p' "$G")" '=\?UTF-8\?[bB]\?' "the raw Subject is encoded"
is "$(json "$TMP/u.json" "d['to_names']")" "['Zoë Ünïcode']" "a UTF-8 name decodes back to itself"
is "$(json "$TMP/u.json" "max(len(l) for l in d['raw_header_lines']) <= 78")" True \
	"encoded headers are folded"
ok "the greeting uses the decoded name" grep -qx 'Hi Zoë,' "$G"
ok "the body is UTF-8, 8bit" grep -q 'Content-Transfer-Encoding: 8bit' "$G"
done_testing

#!/bin/sh
# Long headers in replies are folded: a long non-ASCII display name gave
# a 1,029-character To: line (RFC 5322 allows 998).  Names are folded
# between words (encoded or not), cut at 200 bytes when they have no
# blank to fold at, and a Subject word no fold can cut is encoded.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

$PY - "$TMP/long.mbox" "$FIXTURES/reply/one-line.diff" <<'EOF'
import email.header, sys
diff = open(sys.argv[2], "rb").read()
def enc(s):
    return email.header.Header(s, "utf-8").encode(maxlinelen=76).replace("\n", "").encode()
utf8 = "Zoë Ünïcödé " * 40		# 480 characters, non-ASCII
ascii = "Mallory " * 100			# 800 characters with blanks
solid = "X" * 1200				# no blank at all
msgs = [
    (b"From: " + enc(utf8) + b" <zoe@example.org>\n"
     b"To: linux-mm@kvack.org\n"
     b"Cc: \"" + ascii.encode() + b"\" <mallory@example.org>, " + solid.encode() + b" <solid@example.org>\n"
     b"Subject: [PATCH] mm: " + b"y" * 1500 + b"\n"
     b"Message-ID: <long-1@example.org>\n"),
    (b"From: Bob <bob@example.org>\n"
     b"To: linux-mm@kvack.org\n"
     b"Subject: [PATCH] mm: short\n"
     b"Message-ID: <short-1@example.org>\n"),
]
with open(sys.argv[1], "wb") as f:
    for i, m in enumerate(msgs):
        f.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m +
                b"Date: Mon, 2 Mar 2026 1%d:00:00 +0000\n" % i +
                b"MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
                b"Content-Transfer-Encoding: 8bit\n\n"
                b"Fix it.\n\nSigned-off-by: Bob <bob@example.org>\n" + diff + b"\n")
EOF
fill_db "$TMP/long.mbox"
cat >"$TMP/check.json" <<'EOF'
{"findings": [{"rule": "x", "severity": "warning", "patch": 1, "file": "mm/a.c", "line": 2,
  "message": "an int named b"}]}
EOF
record_tested long-1@example.org short-1@example.org
record long-1@example.org check "$TMP/check.json"
record short-1@example.org check "$TMP/check.json"
report_conf
lorebot --config "$CONF" --db "$DB" reply --outbox "$TMP/out" --json >"$TMP/r.json" 2>"$TMP/r.err"
is "$(json "$TMP/r.json" "(d['composed'], d['sent'], d['errors'])")" "(2, 2, 0)" \
	"both replies filed: the long one and the next"

F=$(grep -l '^In-Reply-To: <long-1@example.org>' "$TMP"/out/new/*)
ok "the reply to the long series is there" test -n "$F"
$PY "$LOREBOT_SRC/tests/mail-summary.py" "$F" >"$TMP/h.json"
is "$(json "$TMP/h.json" "[l[:40] for l in d['raw_header_lines'] if len(l) > 998]")" "[]" \
	"every header line within RFC 5322's 998"
is "$(sed -n '/^To:/,/^Cc:/p' "$F" | awk 'length > 78' | wc -l | tr -d ' ')" 0 \
	"To: is folded within 78 columns"
is "$(json "$TMP/h.json" "d['to']")" "['zoe@example.org']" "To: the sender still"
like "$(json "$TMP/h.json" "d['to_names'][0].replace(' ', '')")" "^(ZoëÜnïcödé){10}" \
	"the long UTF-8 name decodes back (its first 200 bytes)"
is "$(json "$TMP/h.json" "sorted(d['cc'])")" \
	"['linux-mm@kvack.org', 'mallory@example.org', 'solid@example.org']" "Cc: every address"
is "$($PY -c 'import email, email.policy, email.utils, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
print([190 <= len(n) <= 200 for n, e in email.utils.getaddresses([str(m["Cc"])]) if n])' "$F")" \
	"[True, True]" "long names cut at 200 bytes"
like "$(json "$TMP/h.json" "d['subject']")" "^Re: \[PATCH\] mm: y{1500}$" \
	"the Subject with a 1500-byte word decodes back whole"
is "$(json "$TMP/h.json" "d['ascii_headers']")" True "the header is ASCII"
done_testing

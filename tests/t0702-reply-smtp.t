#!/bin/sh
# lorebot reply over SMTP to a real server (aiosmtpd): what arrives, no
# duplicates after a crash between "sending" and "sent", retries,
# refusals, STARTTLS, SMTPS and AUTH with a credentials file
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

L=$FIXTURES/lore
fill_db
record_all
cp "$DB" "$TMP/fresh.db"
smtp_start
smtp_conf() {
	report_conf reply.mode=smtp smtp.url="smtp://127.0.0.1:$SMTP_PORT" smtp.timeout=10s "$@"
}
fresh() {
	rm -f "$DB" "$DB-wal" "$DB-shm"
	cp "$TMP/fresh.db" "$DB"
}
smtp_conf

lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r1.json" 2>"$TMP/r1.err"
is "$?" 0 "reply over SMTP exits 0"
is "$(json "$TMP/r1.json" "(d['composed'], d['sent'], d['failed'])")" "(3, 3, 0)" "three sent: one per version"
is "$(mails)" 3 "the server received three mails"
is "$(sql "SELECT count(*) FROM replies WHERE state = 'sent' AND mode = 'smtp' AND attempts = 1
	AND sent IS NOT NULL")" 3 "each sent at the first attempt, recorded"

# what arrived is what was stored, with CRLF; envelope = To + Cc
$PY - "$DB" "$SMTP_DIR" >"$TMP/check.out" <<'EOF'
import email, email.utils, json, os, sqlite3, sys
db, d = sys.argv[1], sys.argv[2]
rows = {r[0]: (r[1], json.loads(r[2])) for r in sqlite3.connect(db).execute(
    "SELECT msgid, mail, recipients FROM replies")}
ok = 0
for f in sorted(x for x in os.listdir(d) if x.endswith(".eml")):
    raw = open(os.path.join(d, f), "rb").read()
    env = json.load(open(os.path.join(d, f[:-4] + ".json")))
    m = email.message_from_bytes(raw)
    mid = m["Message-ID"].strip("<>")
    stored, rcpt = rows[mid]
    same = raw == stored.replace(b"\n", b"\r\n")
    hdr = [e.lower() for n, e in email.utils.getaddresses(m.get_all("To", []) + m.get_all("Cc", []))]
    envok = sorted(x.lower() for x in env["rcpt_tos"]) == sorted(hdr) == sorted(
        x.lower() for x in rcpt["to"] + rcpt["cc"])
    fromok = env["mail_from"] == "lorebot@localhost"
    print(f, same, envok, fromok)
    ok += same and envok and fromok
print("ok", ok)
EOF
is "$(tail -1 "$TMP/check.out")" "ok 3" \
	"each mail arrived byte for byte as stored; envelope: the bot to every To and Cc"
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r2.json"
is "$(json "$TMP/r2.json" "(d['composed'], d['sent'])")" "(0, 0)" "a second run sends nothing"
is "$(mails)" 3 "still three mails at the server"

# threading against the fixture threads
for f in "$SMTP_DIR"/*.eml; do
	$PY "$LOREBOT_SRC/tests/mail-summary.py" "$f" --mbox "$L/000_73a05b4700ab1a7a.mbox" \
		--mbox "$L/003_6100bb5053417aef.mbox" --mbox "$L/004_476fa21b8430df59.mbox" \
		>"$f.summary"
done
is "$(for f in "$SMTP_DIR"/*.summary; do
	json "$f" "(d['thread']['parent_found'], d['thread']['references_ok'],
		d['subject'] == 'Re: ' + ' '.join(d['thread']['parent_subject'].split()),
		d['to'] == [d['thread']['parent_from']])"
	done | sort | uniq -c | sed 's/^ *//')" "3 (True, True, True, True)" \
	"every mail: parent in the thread, References its chain, Re: its subject, To its sender"

# a crash after "sending" was recorded, before the mail went out
fresh
smtp_stop && smtp_start
smtp_conf
LOREBOT_TEST_CRASH=sending lorebot --config "$CONF" --db "$DB" reply --series "$S004" \
	>/dev/null 2>&1
is "$?" 137 "LOREBOT_TEST_CRASH=sending: killed (SIGKILL)"
is "$(mails)" 0 "nothing was sent"
is "$(sql "SELECT state, attempts FROM replies WHERE state != 'queued'")" "sending|1" \
	"one reply is left in 'sending'"
MID=$(sql "SELECT msgid FROM replies WHERE state = 'sending'")
lorebot --config "$CONF" --db "$DB" reply --series "$S004" --json >"$TMP/r3.json" 2>/dev/null
is "$(mails)" 0 "the next run sends nothing: the interrupted one waits (reply.indoubt)"
is "$(sql "SELECT state, reason FROM replies WHERE msgid = '$MID'")" \
	"sending|delivery interrupted; waiting for the list archive before sending again" \
	"it waits for the list archive to show it"
smtp_conf reply.indoubt=0
lorebot --config "$CONF" --db "$DB" reply --series "$S004" --json >"$TMP/r4.json" 2>/dev/null
is "$(sql "SELECT state, attempts FROM replies WHERE msgid = '$MID'")" "sent|2" \
	"reply.indoubt passed, not in the archive: sent, second attempt"
is "$(mails)" 1 "one mail in all: the one reply"
is "$(grep -l "^Message-ID: <$MID>" "$SMTP_DIR"/*.eml | wc -l | tr -d ' ')" 1 \
	"sent with the Message-ID it had before the crash"

# a crash after the mail went out, before "sent" was recorded
fresh
smtp_stop && smtp_start
smtp_conf
LOREBOT_TEST_CRASH=sent lorebot --config "$CONF" --db "$DB" reply --series "$S004" \
	>/dev/null 2>&1
is "$?" 137 "LOREBOT_TEST_CRASH=sent: killed"
is "$(mails)" 1 "the mail went out"
MID=$(sql "SELECT msgid FROM replies WHERE state = 'sending'")
is "$(sql "SELECT count(*) FROM replies WHERE state = 'sending'")" 1 "but it is still 'sending'"
# the list echoes it: the archive has it (as after the next lore fetch)
lorebot --db "$DB" fetch --mbox "$SMTP_DIR/0001.eml" >/dev/null 2>&1
lorebot --config "$CONF" --db "$DB" reply --series "$S004" --json >"$TMP/r5.json" 2>/dev/null
is "$(sql "SELECT state, reason FROM replies WHERE msgid = '$MID'")" \
	"sent|found in the list archive after an interrupted delivery" \
	"found in the archive: recorded sent, not sent again"
is "$(grep -l "^Message-ID: <$MID>" "$SMTP_DIR"/*.eml | wc -l | tr -d ' ')" 1 \
	"no duplicate at the server"
is "$(mails)" 1 "nothing else was sent"

# same crash, no archive copy: after reply.indoubt, the same bytes again
fresh
smtp_stop && smtp_start
smtp_conf
LOREBOT_TEST_CRASH=sent lorebot --config "$CONF" --db "$DB" reply --series "$S004" \
	>/dev/null 2>&1
smtp_conf reply.indoubt=0
lorebot --config "$CONF" --db "$DB" reply --series "$S004" >/dev/null 2>&1
MID=$(sql "SELECT msgid FROM replies WHERE attempts = 2")
set -- $(grep -l "^Message-ID: <$MID>" "$SMTP_DIR"/*.eml)
is "$#" 2 "not confirmed by the archive: sent once more"
ok "byte for byte the same mail, same Message-ID (archives keep one)" cmp "$1" "$2"

# transient failures: retried with back-off, then sent
fresh
smtp_stop && smtp_start --tempfail 2
smtp_conf
lorebot --config "$CONF" --db "$DB" reply --series "$S003" --json >"$TMP/r6.json" 2>"$TMP/r6.err"
is "$?" 0 "451 twice, then accepted: exits 0"
is "$(sql "SELECT kind, state, attempts FROM replies WHERE version = '$V003'")" "check|sent|3" \
	"sent at the third attempt"
like "$(cat "$TMP/r6.err")" "451.*trying again in 50 ms" "the retry is logged with its wait"
like "$(cat "$TMP/r6.err")" "trying again in 100 ms" "and the wait doubles"

# the server refuses a recipient: failed at once, not retried
fresh
smtp_stop && smtp_start --reject vernon2gm@gmail.com
smtp_conf
lorebot --config "$CONF" --db "$DB" reply --series "$S003" --json >"$TMP/r7.json" 2>/dev/null
is "$?" 3 "a refused reply: exit 3"
is "$(sql "SELECT state, attempts FROM replies WHERE version = '$V003'")" "failed|1" \
	"failed after one attempt (550 is permanent)"
like "$(sql "SELECT reason FROM replies WHERE version = '$V003'")" "SMTP 550" "the reason names the reply code"
lorebot --config "$CONF" --db "$DB" reply --series "$S003" >/dev/null 2>&1
is "$(sql "SELECT attempts FROM replies WHERE version = '$V003'")" 1 "a failed reply is not tried again"
is "$(mails)" 0 "nothing arrived"

# no server at all: attempts, then failed
fresh
smtp_stop
smtp_conf reply.attempts=3
lorebot --config "$CONF" --db "$DB" reply --series "$S003" >/dev/null 2>"$TMP/r8.err"
is "$?" 3 "no server: exit 3"
is "$(sql "SELECT state, attempts FROM replies WHERE version = '$V003'")" "failed|3" \
	"failed after reply.attempts attempts"
like "$(sql "SELECT reason FROM replies WHERE version = '$V003'")" "connect" "the reason says why"
fresh
lorebot --config "$CONF" --db "$DB" reply --series "$S003" --no-wait >/dev/null 2>&1
is "$(sql "SELECT state, attempts FROM replies WHERE version = '$V003'")" "queued|1" \
	"--no-wait: one attempt, left queued for later"

# STARTTLS with AUTH, the password from a file only its owner reads
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
	-addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
	-keyout "$TMP/key.pem" -out "$TMP/cert.pem" >/dev/null 2>&1
printf 'user lorebot\npassword s3cret pass\n' >"$TMP/cred"
chmod 600 "$TMP/cred"
fresh
smtp_start --starttls "$TMP/cert.pem" "$TMP/key.pem" --auth "lorebot:s3cret pass"
smtp_conf smtp.credentials="$TMP/cred" smtp.cainfo="$TMP/cert.pem"
lorebot --config "$CONF" --db "$DB" reply --series "$S003" >/dev/null 2>"$TMP/r9.err"
is "$?" 0 "STARTTLS + AUTH: exits 0"
is "$(mails)" 1 "sent"
is "$(json "$SMTP_DIR/0001.json" "(d['tls'], d['auth'])")" "(True, True)" \
	"over TLS, authenticated"
fresh
chmod 644 "$TMP/cred"
lorebot --config "$CONF" --db "$DB" reply --series "$S003" >/dev/null 2>"$TMP/r10.err"
is "$?" 3 "a credentials file others can read: exit 3"
like "$(sql "SELECT state, reason FROM replies WHERE version = '$V003'")" \
	"^failed\|smtp.credentials '.*/cred' can be read by others \(mode 0644\); refusing" \
	"refused, saying why"
is "$(mails)" 1 "nothing more sent"
fresh
chmod 600 "$TMP/cred"
printf 'user lorebot\npassword wrong\n' >"$TMP/cred"
lorebot --config "$CONF" --db "$DB" reply --series "$S003" >/dev/null 2>&1
is "$(sql "SELECT state FROM replies WHERE version = '$V003'")" failed "a wrong password: failed"
fresh
smtp_conf smtp.cainfo="$TMP/cert.pem"
lorebot --config "$CONF" --db "$DB" reply --series "$S003" >/dev/null 2>&1
is "$(sql "SELECT state FROM replies WHERE version = '$V003'")" failed \
	"no credentials where the server requires AUTH: failed"
smtp_stop

# SMTPS: TLS from the first byte
fresh
smtp_start --smtps "$TMP/cert.pem" "$TMP/key.pem"
report_conf reply.mode=smtp smtp.url="smtps://127.0.0.1:$SMTP_PORT" smtp.cainfo="$TMP/cert.pem"
lorebot --config "$CONF" --db "$DB" reply --series "$S003" >/dev/null 2>"$TMP/r11.err"
is "$?" 0 "smtps:// exits 0"
is "$(json "$SMTP_DIR/0001.json" "d['tls']")" True "over TLS"
fresh
report_conf reply.mode=smtp smtp.url="smtps://127.0.0.1:$SMTP_PORT" reply.attempts=1
lorebot --config "$CONF" --db "$DB" reply --series "$S003" >/dev/null 2>&1
like "$(sql "SELECT state, reason FROM replies WHERE version = '$V003'")" "^failed\|" \
	"a certificate that cannot be verified: not sent"
is "$(mails)" 1 "nothing more arrived"
smtp_stop

# rate limits
fresh
smtp_start
smtp_conf reply.perhour=2
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r12.json" 2>/dev/null
is "$(json "$TMP/r12.json" "(d['sent'], d['deferred'])")" "(2, 1)" "reply.perhour=2: two sent, one waits"
is "$(sql "SELECT count(*) FROM replies WHERE state = 'queued' AND reason LIKE 'rate limit%'
	AND next_attempt > strftime('%s', 'now') + 3000")" 1 "it waits about an hour"
fresh
smtp_conf reply.perauthor=1
lorebot --config "$CONF" --db "$DB" reply --json >"$TMP/r13.json" 2>/dev/null
is "$(sql "SELECT author, count(*) FROM replies WHERE state = 'sent' GROUP BY author ORDER BY author" | tr '\n' ' ')" \
	"21cnbao@gmail.com|1 hebaoquan@kylinos.cn|1 vernon2gm@gmail.com|1 " \
	"reply.perauthor=1: one per author"
is "$(mails)" 5 "two more arrived (with the two before)"
done_testing

# Helpers for the reply and dashboard tests (t07xx); source after tests/lib.sh.
#
#	fill_db [MBOX...]     import the mboxes (default: the three fixture
#	                      threads) into $DB
#	record_all            record every result of tests/fixtures/results
#	record_tested V...    record for one-patch versions an apply onto mm-new
#	                      and clean builds and boots on the three archs, so
#	                      that only their check result is left to record
#	report_conf K=V...    write $CONF: outbox defaults plus overrides
#	db_keep               keep $DB as it is now; fresh puts it back
#	dry                   lorebot reply --dry-run into $TMP/dry.mbox (.err)
#	dry_split             dry, then each mail into $TMP/mail-<local part of
#	                      the Message-ID it answers>: its X-Lorebot-Outcome
#	                      on the first line, then its body
#	smtp_start [ARGS]     a real SMTP server (aiosmtpd) on a free port;
#	                      sets SMTP_PORT, SMTP_DIR (one NNNN.eml per mail)
#	smtp_stop             stop it
#	mails                 how many mails the SMTP server received
#	sql QUERY             run a query on $DB
#	hdr FILE NAME         a header of a mail file, decoded and unfolded

DB=$TMP/lorebot.db
CONF=$TMP/lorebot.conf
RESULTS=$FIXTURES/results
V000=20260824073801.982490-1-hebaoquan@kylinos.cn
V003=20260207081613.588598-1-vernon2gm@gmail.com
V003OLD=20260207081144.588545-1-vernon2gm@gmail.com
V004=20250115033807.46664-1-21cnbao@gmail.com
S000=3e49fb4473fa
S003=08ffd8067234
S004=7f95c71efe2b
fill_db() {
	if [ $# = 0 ]; then
		set -- "$FIXTURES"/lore/*.mbox
	fi
	cat "$@" >"$TMP/fill.mbox"
	"$LOREBOT" --db "$DB" fetch --mbox "$TMP/fill.mbox" >"$TMP/fill.out" 2>&1 || {
		cat "$TMP/fill.out" >&2
		echo "Bail out! cannot fill the database"
		exit 1
	}
}

record() {
	"$LOREBOT" --db "$DB" record --version "$1" --stage "$2" "$3" >/dev/null
}

record_all() {
	record "$V000" apply "$RESULTS/apply-000.json" &&
	record "$V000" check "$RESULTS/check-000.json" &&
	record "$V000" build "$RESULTS/build-000.json" &&
	record "$V000" boot "$RESULTS/boot-000.json" &&
	record "$V003" apply "$RESULTS/apply-003.json" &&
	record "$V003" check "$RESULTS/check-003.json" &&
	record "$V003" build "$RESULTS/build-003.json" &&
	record "$V003" boot "$RESULTS/boot-003.json" &&
	record "$V004" apply "$RESULTS/apply-004.json" &&
	record "$V004" check "$RESULTS/check-004.json" || {
		echo "Bail out! cannot record the fixture results"
		exit 1
	}
}

record_tested() {
	for _v; do
		record "$_v" apply "$RESULTS/apply-one.json" &&
		record "$_v" build "$RESULTS/build-003.json" &&
		record "$_v" boot "$RESULTS/boot-003.json" || {
			echo "Bail out! cannot record the results of '$_v'"
			exit 1
		}
	done
}

db_keep() {
	cp "$DB" "$TMP/fresh.db"
}

fresh() {
	rm -f "$DB" "$DB-wal" "$DB-shm"
	cp "$TMP/fresh.db" "$DB"
}

dry() {
	lorebot --config "$CONF" --db "$DB" reply --dry-run >"$TMP/dry.mbox" 2>"$TMP/dry.err"
}

dry_split() {
	dry
	$PY - "$TMP/dry.mbox" "$TMP/mail" <<-'EOF'
	import mailbox, sys
	for m in mailbox.mbox(sys.argv[1]):
	    ref = (m["In-Reply-To"] or "").strip("<>")
	    body = m.get_payload(decode=True).decode()
	    open(sys.argv[2] + "-" + ref.split("@")[0], "w").write(m["X-Lorebot-Outcome"] + "\n" + body)
	EOF
}

report_conf() {
	cat >"$CONF" <<-CONF
	[core]
		statedir = $TMP/state
	[reply]
		retrydelay = 50ms
		wait = 10s
	CONF
	for kv in "$@"; do
		git config -f "$CONF" --add "${kv%%=*}" "${kv#*=}"
	done
}

smtp_start() {
	SMTP_PORT=$(free_port)
	SMTP_DIR=$TMP/smtp-$SMTP_PORT
	mkdir -p "$SMTP_DIR"
	rm -f "$TMP/smtp.out" "$TMP/smtp.pid"
	$PY "$LOREBOT_SRC/tests/smtp-sink.py" --port "$SMTP_PORT" --dir "$SMTP_DIR" \
		--pidfile "$TMP/smtp.pid" "$@" >"$TMP/smtp.out" 2>&1 &
	_i=0
	until grep -q "^ready $SMTP_PORT\$" "$TMP/smtp.out" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt 200 ] || ! kill -0 $! 2>/dev/null; then
			cat "$TMP/smtp.out" >&2
			echo "Bail out! the SMTP server did not start"
			exit 1
		fi
		sleep 0.05
	done
	SMTP_PID=$(cat "$TMP/smtp.pid")
	cleanup_add "kill $SMTP_PID"
}

smtp_stop() {
	kill "$SMTP_PID" 2>/dev/null
	while kill -0 "$SMTP_PID" 2>/dev/null; do
		sleep 0.05
	done
}

mails() {
	ls "$SMTP_DIR" | grep -c '\.eml$'
}

sql() {
	sqlite3 "$DB" "$1"
}

hdr() {
	$PY -c 'import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
v = m.get_all(sys.argv[2]) or []
print("\n".join(str(x) for x in v))' "$1" "$2"
}

# patch_mail FROM SUBJECT MSGID DATE [ADDED-LINE]: a one-patch series as an mbox
patch_mail() {
	printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: %s\nTo: linux-mm@kvack.org\n' "$1"
	printf 'Subject: %s\nDate: %s\nMessage-ID: <%s>\n' "$2" "$4" "$3"
	printf 'MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n'
	printf 'Signed-off-by: %s\n---\n' "$1"
	printf 'diff --git a/mm/a.c b/mm/a.c\nindex 1111111..2222222 100644\n'
	printf -- '--- a/mm/a.c\n+++ b/mm/a.c\n@@ -1,2 +1,3 @@\n int a;\n+%s\n int c;\n\n' \
		"${5:-int b;}"
}

# A one-patch series whose subject and author are HTML
xss_mbox() {
	patch_mail '"Mal <img src=x onerror=alert(2)>" <mal@example.org>' \
		'[PATCH] mm: <script>alert(1)</script> & "fix"' xss-1@example.org \
		'Tue, 3 Mar 2026 09:00:00 +0000' 'int b; /* </pre><script>alert(3)</script> */' >"$1"
}
VXSS=xss-1@example.org

# The dashboard filled from the fixture threads: results, replies, XSS series
dash_fill() {
	xss_mbox "$TMP/xss.mbox"
	fill_db "$FIXTURES"/lore/*.mbox "$TMP/xss.mbox"
	record_all
	cat >"$TMP/xss-check.json" <<-'JSON'
	{"findings": [{"rule": "<b>bold</b>", "severity": "warning", "patch": 1,
	  "file": "mm/a.c", "line": 2, "message": "</td><script>alert(4)</script>",
	  "quote": "int b; /* </pre><script>alert(3)</script> */\n"}]}
	JSON
	record "$VXSS" check "$TMP/xss-check.json"
	report_conf
	"$LOREBOT" --config "$CONF" --db "$DB" reply --outbox "$TMP/outbox" >/dev/null 2>&1
}

# lorebot serve on a free port (no configuration file unless given); sets WEB
serve_start() {
	WEB_PORT=$(free_port)
	"$LOREBOT" "$@" --db "$DB" serve --listen "127.0.0.1:$WEB_PORT" >"$TMP/serve.out" 2>&1 &
	WEB_PID=$!
	cleanup_add "kill $WEB_PID"
	WEB=http://127.0.0.1:$WEB_PORT
	_i=0
	until curl -sf -o /dev/null "$WEB/healthz"; do
		_i=$((_i + 1))
		if [ $_i -gt 200 ] || ! kill -0 $WEB_PID 2>/dev/null; then
			cat "$TMP/serve.out" >&2
			echo "Bail out! lorebot serve did not start"
			exit 1
		fi
		sleep 0.05
	done
}

serve_stop() {
	kill "$WEB_PID" 2>/dev/null
	wait "$WEB_PID" 2>/dev/null
}

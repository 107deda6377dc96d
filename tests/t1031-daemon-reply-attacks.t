#!/bin/sh
# Attacks on the bot's replies, mailed to a real local lore and taken by
# the daemon (--once) as root and as the user lorebot, the replies sent
# over SMTP to a real server (aiosmtpd): a patch mail with a thousand
# people on To: and Cc: (the bot must not mail a crowd for whoever
# sends one mail: reply.maxcc), and one whose Subject and sender's
# name decode to CR LF and SMTP commands (". MAIL FROM RCPT TO DATA":
# smuggling a second message into the DATA of the reply).  Each patch
# does not apply, so that the bot replies; a patch with three people on
# Cc: gets a reply to them all, and a good series beside applies.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "runs the daemon as root and as user lorebot: needs root"
id -u lorebot >/dev/null 2>&1 || skip_all "no user lorebot (ci/deps.sh creates it)"
command -v runuser >/dev/null || skip_all "no runuser (util-linux)"
$PY -c 'import aiosmtpd' 2>/dev/null || skip_all "no aiosmtpd (python3-aiosmtpd)"

cd "$TMP" || exit 1
chmod 0755 "$TMP"
sec_repo

# a patch of x.txt that does not apply (the bot replies), with headers
# from stdin (To:, Cc:) after the first lines of mkpatch's
noapply() {
	printf 'diff --git a/x.txt b/x.txt\nindex 587be6b..1111111 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-not there\n+y\n' |
		mkpatch "$1"
}

mails() {
	mkdir -p mail
	newfile mm/good.c | mkpatch good >mail/good
	# a thousand people on To: and Cc:
	noapply crowd | $PY -c 'import sys
to = ",\n ".join("<crowd%d@victims.example>" % i for i in range(500))
cc = ",\n ".join("<crowd%d@victims.example>" % i for i in range(500, 1000))
sys.stdout.write(sys.stdin.read().replace("Subject:",
    "To: linux-mm@kvack.org,\n %s\nCc: %s\nSubject:" % (to, cc), 1))' >mail/crowd
	noapply three | sed 's/^Subject:/To: linux-mm@kvack.org\nCc: Ann <ann@example.org>, bob@example.org,\n carl@example.org\n&/' >mail/three
	# CR LF and SMTP commands in encoded words of Subject: and From:
	noapply smuggle | $PY -c 'import sys
evil = "=?utf-8?q?mm:_smuggle=0D=0A.=0D=0AMAIL_FROM:<spam@evil.example>=0D=0ARCPT_TO:<victim@evil.example>=0D=0ADATA=0D=0A?="
name = "=?utf-8?q?Eve=0D=0ARCPT_TO:<victim2@evil.example>=0D=0A.=0D=0A?="
s = sys.stdin.read()
s = s.replace("Subject: [PATCH] mm: smuggle", "Subject: [PATCH] " + evil, 1)
s = s.replace("From: Eve <", "From: %s <" % name, 1)
sys.stdout.write(s)' >mail/smuggle
	printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Bob <bob@example.org>\nTo: linux-mm@kvack.org\nSubject: hello\nDate: Mon, 1 Jun 2026 09:00:00 +0000\nMessage-ID: <hello@example.org>\n\nhello\n\n' >start.mbox
}

# envelope WHO MSGID: the sorted envelope recipients of the reply to MSGID
envelope() {
	$PY - "$SMTP_DIR" "$1" <<-'EOF'
	import email, json, os, sys
	d, want = sys.argv[1], "<%s>" % sys.argv[2]
	for f in sorted(x for x in os.listdir(d) if x.endswith(".eml")):
	    m = email.message_from_bytes(open(os.path.join(d, f), "rb").read())
	    if (m["In-Reply-To"] or "").strip() == want:
	        env = json.load(open(os.path.join(d, f[:-4] + ".json")))
	        print(" ".join(sorted(a.lower() for a in env["rcpt_tos"])))
	EOF
}

run_as() {
	who=$1
	sec_lab "$who" || return 1
	smtp_start
	DB=$st/state/lorebot.db
	CONF=$st/lorebot.conf
	lore_conf daemon.window=0 boot.enable=false reply.mode=smtp \
		smtp.url="smtp://127.0.0.1:$SMTP_PORT" smtp.timeout=10s \
		list.linux-mm.address=linux-mm@kvack.org \
		core.statedir="$st/state" core.cachedir="$st/cache"
	mkdir -p "$st/state" "$st/cache"
	if [ "$who" = user ]; then
		chown -R lorebot: "$st/state" "$st/cache" "$st/repo.git"
		AS="runuser -u lorebot -- env HOME=$st/state"
	else
		AS=
	fi
	$AS timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" \
		--repo "$st/repo.git" --arch '' --once >"$st/d.out" 2>"$st/d.err"
	is "$?" 0 "$who: daemon --once over the attacks exits 0"
	unlike "$(cat "$st/d.err")" "AddressSanitizer|runtime error" "$who: no sanitizer report"
	is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "$who: every job done"
	is "$(sql "SELECT r.status FROM results r JOIN versions v ON v.id = r.version
		WHERE r.stage = 'apply' AND v.title = 'mm: good'")" applied "$who: the good series applied"
	is "$(sql "SELECT count(*) FROM replies WHERE state = 'sent'")" 3 \
		"$who: three replies sent (crowd, three, smuggle)"
	is "$(ls "$SMTP_DIR" | grep -c '\.eml$')" 3 "$who: the server received three mails, no fourth"

	is "$(envelope crowd@example.com)" "eve@example.com linux-mm@kvack.org" \
		"$who: the crowd's reply goes to its sender and the list only"
	is "$(envelope three@example.com)" \
		"ann@example.org bob@example.org carl@example.org eve@example.com linux-mm@kvack.org" \
		"$who: three people on Cc: get the reply"
	# From: is read as git mailinfo reads it (the address in the encoded
	# name): the sender names itself, one address, as any From: does
	is "$(envelope smuggle@example.com)" "$(printf '%s\nlinux-mm@kvack.org\n' "$SMUGGLER" | sort | xargs)" \
		"$who: the smuggler's reply goes to the one sender git reads and the list"
	is "$(cat "$SMTP_DIR"/*.json | grep -c 'victim@\|spam@\|victims.example')" 0 \
		"$who: no envelope names the Subject's victim or a crowd's"
	is "$($PY -c 'import glob, json, sys
print(sorted(set(json.load(open(f))["mail_from"] for f in glob.glob(sys.argv[1] + "/*.json"))))' "$SMTP_DIR")" \
		"['lorebot@localhost']" "$who: every envelope is the bot's"
	F=$(grep -l '^In-Reply-To: <smuggle@example.com>' "$SMTP_DIR"/*.eml | head -1)
	[ -n "$F" ] || F=/dev/null
	is "$(tr -d '\r' <"$F" | grep -cE '^(\.|MAIL FROM|RCPT TO|DATA)')" 0 \
		"$who: no line of the smuggler's reply is a dot or an SMTP command"
	like "$(hdr "$F" Subject)" "smuggle.*MAIL FROM:<spam@evil.example>.*DATA" \
		"$who: the commands stay text, inside the Subject"
	is "$(tr -d '\r' <"$F" | sed '/^$/q' | grep -vE '^(From|To|Cc|Subject|Date|Message-ID|In-Reply-To|References|MIME-Version|Content-Type|Content-Transfer-Encoding|Content-Disposition|Auto-Submitted|X-Lorebot-Outcome): |^[[:space:]]|^$' | wc -l | tr -d ' ')" \
		0 "$who: every header line is a known header or a continuation"
	if [ "$who" = user ]; then
		is "$(find "$st/state" "$st/cache" "$st/repo.git" ! -user lorebot | head -3)" "" \
			"user: everything the daemon made is lorebot's"
	fi
	smtp_stop
	"$LORE_LAB" stop "$LAB"
}

mails
SMUGGLER=$(git mailinfo /dev/null /dev/null <mail/smuggle | sed -n 's/^Email: //p')
run_as root
if runuser -u lorebot -- test -x "$LOREBOT"; then
	run_as user
else
	skip "user lorebot cannot run $LOREBOT (a directory on its path is private)"
fi
done_testing

#!/bin/sh
# The attacks of t1001-t1010, mailed to a real local lore and taken by
# the daemon (--once), first as root, then as the unprivileged user
# lorebot that ci/deps.sh creates and config/lorebot.service runs the
# daemon as: a binary patch making a link to /etc/passwd, a NUL byte in
# a diff line, a series that replaces scripts/checkpatch.pl and its data
# and one based on it, a rename that moves a link of the base out of
# the tree (t1005), a 480-character non-ASCII display name (on a patch
# that does not apply, so that the bot replies to it); the trusted
# checkpatch.pl tries to read the SMTP credentials and a root-only file
# outside what a sandbox shows of the host.  Each attack fails, the good series beside them is applied and checked, the
# replies' header lines stay within 998 characters, and as the user
# nothing the daemon made belongs to anyone but lorebot.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "runs the daemon as root and as user lorebot: needs root"
id -u lorebot >/dev/null 2>&1 || skip_all "no user lorebot (ci/deps.sh creates it)"
command -v runuser >/dev/null || skip_all "no runuser (util-linux)"

cd "$TMP" || exit 1
chmod 0755 "$TMP"
# the SMTP credentials, which no sandbox may read (the trusted
# checkpatch.pl, run in the check stage's sandbox, tries)
SEC_SECRET=/var/tmp/lorebot-t1030-secret.$$
cleanup_add "rm -f '$SEC_SECRET'"
# a root-only file (0600) outside the sandbox's allowlist, hidden by no
# one: as root, only its absence from the sandbox keeps it from a stage
SEC_ROOTFILE=/var/tmp/lorebot-t1030-rootonly.$$
NOBODY=nobody	# build.user's default
cleanup_add "rm -f '$SEC_ROOTFILE'"
(umask 077 && echo rootonly-secret >"$SEC_ROOTFILE")
sec_repo
sec_trusted_checkpatch
# a link that points inside where it is (the top of the tree), and
# outside once a rename moves it up
ln -s ../.. "$S/dir/a/up"
git -C "$S" add -A && git -C "$S" commit -qm up && git -C "$S" push -q "$R" main:mm-new

# evil A: its own checkpatch.pl, which leaves a marker where anyone can
# write when it runs (in a sandbox or not)
PWNED=/var/tmp/lorebot-t1030-pwned.$$
cleanup_add "rm -f '$PWNED'"
git -C "$S" checkout -q -b evil
fake_checkpatch ATTACKER "$PWNED" >"$S/scripts/checkpatch.pl"
echo ATTACKERDATA >"$S/scripts/spelling.txt"
git -C "$S" commit -qam "mm: improve checkpatch"
git -C "$S" format-patch -q --stdout -1 |
	sed 's/^Message-ID: .*//' | sed '1,/^Subject:/s/^Subject: .*/&\nMessage-ID: <evil-a@example.com>/' >A.mbox
git -C "$S" checkout -q main

mails() {
	mkdir -p mail
	newfile mm/good.c | mkpatch good >mail/good
	binfile evil /etc/passwd 120000 | mkpatch abslink >mail/abslink
	printf 'diff --git a/x.txt b/x.txt\nindex 587be6b..1111111 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1,2 @@\n x\n+ab\0cdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop\n' |
		mkpatch nulbyte >mail/nulbyte
	printf 'diff --git a/x.txt b/x.txt\nindex 587be6b..1111111 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-not there\n+y\n' |
		mkpatch longname | $PY -c 'import email.header, sys
name = email.header.Header("Zoë Ünïcödé " * 40, "utf-8").encode(maxlinelen=76)
sys.stdout.write(sys.stdin.read().replace("From: Eve ", "From: %s " % name.replace("\n", ""), 1))' >mail/longname
	# the inbox the lab starts with: one mail that is not a patch
	printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Bob <bob@example.org>\nTo: linux-mm@kvack.org\nSubject: hello\nDate: Mon, 1 Jun 2026 09:00:00 +0000\nMessage-ID: <hello@example.org>\n\nhello\n\n' >start.mbox
	cp A.mbox mail/evil-a
	printf 'diff --git a/dir/a/up b/up\nsimilarity index 100%%\nrename from dir/a/up\nrename to up\n' |
		mkpatch renameup >mail/renameup
}

# run_as WHO: the whole pass, state in $TMP/WHO; as lorebot it owns the
# state directory and its copy of the repository, nothing else
run_as() {
	who=$1
	sec_lab "$who" || return 1
	DB=$st/state/lorebot.db
	CONF=$st/lorebot.conf
	lore_conf daemon.window=0 boot.enable=false reply.mode=outbox \
		core.statedir="$st/state" core.cachedir="$st/cache" \
		smtp.credentials="$SEC_SECRET"
	mkdir -p "$st/state" "$st/cache"
	printf 'user bot\npassword hunter2\n' >"$SEC_SECRET"
	chmod 0600 "$SEC_SECRET"
	if [ "$who" = user ]; then
		chown lorebot: "$SEC_SECRET"
		chown -R lorebot: "$st/state" "$st/cache" "$st/repo.git"
		AS="runuser -u lorebot -- env HOME=$st/state"
	else
		AS=
		# a root-only file among what a sandbox of the root daemon sees
		(umask 077 && echo rootonly >"$st/repo.git/rootonly")
	fi
	$AS timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" \
		--repo "$st/repo.git" --outbox "$st/state/outbox" --arch '' --once \
		>"$st/d1.out" 2>"$st/d1.err"
	is "$?" 0 "$who: daemon --once over the attacks exits 0"
	unlike "$(cat "$st/d1.err")" "AddressSanitizer|runtime error" "$who: no sanitizer report"
	# B on A's tip, now that A's tip is public
	tip=$(git --git-dir="$st/repo.git" for-each-ref --format='%(objectname)' \
		refs/heads/lorebot/ | while read -r c; do
		git --git-dir="$st/repo.git" show "$c:scripts/checkpatch.pl" 2>/dev/null |
			grep -q ATTACKER && echo "$c"; done | head -1)
	ok "$who: evil A applied; its tip holds its checkpatch.pl" test -n "$tip"
	# dated now: lore finds new mail by the time it was received, which
	# is the Date: of a mail that came without a Received: line
	{ newfile mm/b.c; printf '\nbase-commit: %s\n' "$tip"; } | mkpatch onevil |
		sed "s/^Date: .*/Date: $(date -R)/" >mail/onevil
	"$LORE_LAB" deliver "$LAB" <mail/onevil
	$AS timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" \
		--repo "$st/repo.git" --outbox "$st/state/outbox" --arch '' --once \
		>"$st/d2.out" 2>"$st/d2.err"
	is "$?" 0 "$who: a second pass, with B, exits 0"
	rm -f mail/onevil

	is "$(sql "SELECT count(*) FROM jobs WHERE state != 'done'")" 0 "$who: every job done"
	applied() {
		sql "SELECT r.status FROM results r JOIN versions v ON v.id = r.version
		     WHERE r.stage = 'apply' AND v.title = 'mm: $1'"
	}
	is "$(applied good)" applied "$who: the good series applied"
	is "$(applied longname)" failed "$who: the series with the long name does not apply"
	is "$(applied abslink)" failed "$who: the link to /etc/passwd refused"
	like "$(sql "SELECT r.json FROM results r JOIN versions v ON v.id = r.version
		WHERE r.stage = 'apply' AND v.title = 'mm: abslink'")" \
		"symbolic link to an absolute path" "$who: ... saying why"
	is "$(applied nulbyte)" failed "$who: the NUL byte refused (U+FFFD is not what was mailed)"
	is "$(applied onevil)" applied "$who: B applied onto A's tip (the tree is data)"
	like "$(sql "SELECT r.json FROM results r JOIN versions v ON v.id = r.version
		WHERE r.stage = 'check' AND v.title = 'mm: onevil'")" "RAN_TRUSTED" \
		"$who: mm-new's checkpatch.pl judged B"
	unlike "$(sql "SELECT r.json FROM results r JOIN versions v ON v.id = r.version
		WHERE r.stage = 'check' AND v.title = 'mm: onevil'")" "RAN_ATTACKER" \
		"$who: A's did not"
	ok "$who: A's checkpatch.pl never ran" test ! -e "$PWNED"
	like "$(sql "SELECT r.json FROM results r JOIN versions v ON v.id = r.version
		WHERE r.stage = 'check' AND v.title = 'mm: onevil'")" "DATA_TRUSTEDDATA" \
		"$who: ... with mm-new's data files"
	unlike "$(sql "SELECT group_concat(json) FROM results WHERE stage = 'check'")" \
		"ATTACKERDATA" "$who: never A's"
	is "$(sql "SELECT count(*) FROM results WHERE stage = 'check' AND json LIKE '%DATA_TRUSTEDDATA%'")" \
		"$(sql "SELECT count(*) FROM results WHERE stage = 'check' AND json LIKE '%RAN_TRUSTED%'")" \
		"$who: every check read its data"
	unlike "$(sql "SELECT group_concat(json) FROM results WHERE stage = 'check'")" \
		"LEAKED_SECRET|hunter2" "$who: no check could read the SMTP credentials (smtp.credentials)"
	unlike "$(sql "SELECT group_concat(json) FROM results WHERE stage = 'check'")" \
		"READ_ROOTFILE|rootonly-secret" "$who: no check could read a root-only file in /var/tmp"
	is "$(sql "SELECT count(*) FROM results WHERE stage = 'check' AND json LIKE '%ROOTFILE_ABSENT%'")" \
		"$(sql "SELECT count(*) FROM results WHERE stage = 'check' AND json LIKE '%RAN_TRUSTED%'")" \
		"$who: ... it is not there for any of them (not only denied)"
	unlike "$(sql "SELECT group_concat(json) FROM results WHERE stage = 'check'")" \
		"REPO_WRITTEN" "$who: no check could write the daemon's repository"
	is "$(sql "SELECT count(*) FROM results WHERE stage = 'check' AND json LIKE '%REPO_READONLY%'")" \
		"$(sql "SELECT count(*) FROM results WHERE stage = 'check' AND json LIKE '%RAN_TRUSTED%'")" \
		"$who: ... it is read-only to every one of them"
	ok "$who: ... nothing was written there" test ! -e "$st/repo.git/refs/heads/sandbox-wrote"
	checks=$(sql "SELECT group_concat(json) FROM results WHERE stage = 'check'")
	if [ "$who" = user ]; then
		like "$checks" "UID_$(id -u lorebot)\"" "user: the checks ran as lorebot"
	elif runuser -u "$NOBODY" -- test -x "$LOREBOT" 2>/dev/null; then
		like "$checks" "UID_$(id -u "$NOBODY")\"" "root: the checks ran as build.user ($NOBODY)"
		unlike "$checks" "UID_0\"" "root: ... none as root's uid"
		unlike "$checks" "READ_REPO_ROOTONLY" "root: no check could read a root-only file of the repository"
		like "$checks" "REPO_ROOTONLY_DENIED" "root: ... denied, not absent"
	else
		for i in 1 2 3 4; do
			skip "build.user cannot reach $LOREBOT: the stages keep root's uid"
		done
	fi
	# apply wrote no ref: the daemon made each applied version's branch
	# from the objects it took in, and touched no other
	is "$(git --git-dir="$st/repo.git" for-each-ref --format='%(refname) %(objectname)' |
		grep -v '^refs/heads/lorebot/')" \
		"$(git --git-dir="$R" for-each-ref --format='%(refname) %(objectname)')" \
		"$who: the base branches are as they were"
	is "$(git --git-dir="$st/repo.git" for-each-ref refs/heads/lorebot/ | wc -l | tr -d ' ')" \
		"$(sql "SELECT count(*) FROM results WHERE stage = 'apply' AND status = 'applied'")" \
		"$who: one branch for each applied version"
	is "$(git --git-dir="$st/repo.git" fsck --strict 2>&1 | grep -v '^dangling' | head -3)" "" \
		"$who: git fsck --strict finds nothing wrong in what was taken in"
	is "$(find "$st" -path '*/jobs/*/objects' | head -3)" "" \
		"$who: no quarantine is left behind"
	is "$(applied renameup)" failed "$who: the rename that takes a link out of the tree refused"
	like "$(sql "SELECT r.json FROM results r JOIN versions v ON v.id = r.version
		WHERE r.stage = 'apply' AND v.title = 'mm: renameup'")" \
		"refusing 'up': symbolic link pointing outside the tree" "$who: ... saying why"
	n=$(find "$st/state/outbox" -type f | wc -l)
	ok "$who: replies were filed ($n)" test "$n" -gt 0
	is "$(cat "$st"/state/outbox/new/* | awk 'length > 998' | wc -l | tr -d ' ')" 0 \
		"$who: no line of a reply over 998 characters"
	F=$(grep -l "^In-Reply-To: <longname@example.com>" "$st"/state/outbox/new/* | head -1)
	ok "$who: the long-named sender got a reply" test -n "$F"
	[ -n "$F" ] || F=/dev/null
	is "$(sed -n '/^To:/,/^[A-Z][a-z-]*: /p' "$F" | sed '$d' | awk 'length > 78' | wc -l | tr -d ' ')" 0 \
		"$who: its To: folded"
	if [ "$who" = user ]; then
		is "$(find "$st/state" "$st/cache" "$st/repo.git" ! -user lorebot | head -3)" "" \
			"user: everything the daemon made is lorebot's"
		is "$(stat -c %U "$DB")" lorebot "user: the database is lorebot's"
	fi
	"$LORE_LAB" stop "$LAB"
}

# the unit runs the daemon the way run_as user does, without a capability
U=$LOREBOT_SRC/config/lorebot.service
is "$(sed -n 's/^User=//p' "$U")" lorebot "the systemd unit runs the daemon as lorebot"
is "$(grep -c '^CapabilityBoundingSet=$' "$U")" 1 "... with no capability"
if command -v systemd-analyze >/dev/null; then
	sed "s|^ExecStart=/usr/local/bin/lorebot|ExecStart=$LOREBOT|" "$U" >"$TMP/lorebot.service"
	# --man=no: the man pages of Documentation= need not be installed here
	is "$(systemd-analyze verify --man=no "$TMP/lorebot.service" 2>&1)" "" "systemd-analyze verify: the unit is sound"
fi

mails
run_as root
if runuser -u lorebot -- test -x "$LOREBOT"; then
	run_as user
else
	skip "user lorebot cannot run $LOREBOT (a directory on its path is private)"
fi
done_testing

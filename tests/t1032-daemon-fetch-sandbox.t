#!/bin/sh
# The fetch pass parses what anyone mailed the list: the daemon runs it
# in a sandbox that sees the network, the database and the list's
# mirrors, and nothing else of the bot's state.  Looked at from outside
# while the fetch waits on a lore that never answers (so that it is
# alive to be looked at): no capability, no new privileges, a mount
# namespace of its own and the host's network; of the state, only the
# database (with its -wal and -shm) and its own scratch directory; not
# the jobs, the outbox, the repository, check's cache, the SMTP
# credentials, nor the host's /run, /home, /root or /var.  Its mail
# parser is jailed further: no network, no process but itself, a root
# of /usr alone, no descriptor of the database, a seccomp filter.  Then real
# passes through the sandbox, by search and by the inbox's git epochs
# (its mirrors are written), store the lab's mail.  As the user running
# the tests and, when that is root, as the user lorebot.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

command -v bwrap >/dev/null || skip_all "no bwrap"

cd "$TMP" || exit 1
chmod 0755 "$TMP"
EXE=$(readlink -f "$LOREBOT")
PORT=$(free_port)
# the black hole: accepts, reads, never answers
"$PY" "$LOREBOT_SRC/tests/black-hole.py" "$PORT" "$TMP/hole.log" &
HOLE=$!
cleanup_add "kill $HOLE"
lab_setup

# wait_for CMD...: until it succeeds, 30 s at most
wait_for() {
	_i=0
	until "$@" 2>/dev/null || [ $_i -gt 600 ]; do
		_i=$((_i + 1))
		sleep 0.05
	done
	"$@" 2>/dev/null
}

# the lorebot process of the fetch (bwrap's own processes are bwrap)
fetch_pid() {
	for p in $(pgrep -f -- "fetch --url http://127.0.0.1:$PORT/"); do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$EXE" ] && { echo "$p"; return 0; }
	done
	return 1
}

# unseen PATH: the fetch does not see PATH (through its /proc/PID/root)
unseen() {
	test ! -e "/proc/$P/root$1"
}

run_as() {
	who=$1
	st=$TMP/$who
	mkdir -p "$st/state" "$st/cache/x" "$st/outbox/new"
	git init -q --bare "$st/repo.git"
	DB=$st/state/lorebot.db
	CONF=$st/lorebot.conf
	CRED=$st/credentials
	lore_conf lore.timeout=10m lore.retries=0 daemon.window=0 boot.enable=false \
		core.statedir="$st/state" core.cachedir="$st/cache" smtp.credentials="$CRED"
	printf 'user bot\npassword hunter2\n' >"$CRED"
	mkdir -p "$st/state/jobs/1"
	echo job >"$st/state/jobs/1/log"
	: >"$TMP/hole.log"
	if [ "$who" = user ]; then
		chown -R lorebot: "$st"
		chmod 0600 "$CRED"
		AS="runuser -u lorebot -- env HOME=$st/state"
	else
		AS=
	fi
	$AS "$LOREBOT" --db "$DB" --config "$CONF" daemon --repo "$st/repo.git" \
		--outbox "$st/outbox" --arch '' --url "http://127.0.0.1:$PORT/linux-mm/" \
		>"$st/d.out" 2>"$st/d.err" &
	D=$!
	cleanup_add "kill -9 $D 2>/dev/null"
	ok "$who: the fetch waits on the silent lore" wait_for grep -q accepted "$TMP/hole.log"
	P=$(fetch_pid)
	ok "$who: the fetch's own process is found" test -n "$P"
	DP=$(pgrep -f -- "--db $DB --config $CONF daemon" | while read -r p; do
		[ "$(readlink "/proc/$p/exe")" = "$EXE" ] && echo "$p"; done | head -1)
	is "$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$P/status")" 0000000000000000 \
		"$who: no capability"
	is "$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' "/proc/$P/status")" 1 "$who: no new privileges"
	ok "$who: a mount namespace of its own" \
		test "$(readlink "/proc/$P/ns/mnt")" != "$(readlink "/proc/$DP/ns/mnt")"
	ok "$who: a user namespace of its own" \
		test "$(readlink "/proc/$P/ns/user")" != "$(readlink "/proc/$DP/ns/user")"
	is "$(readlink "/proc/$P/ns/net")" "$(readlink "/proc/$DP/ns/net")" \
		"$who: the host's network (lore)"
	is "$(stat -c %u "/proc/$P")" "$(stat -c %u "/proc/$DP")" "$who: the daemon's user"
	ok "$who: it sees the database" test -s "/proc/$P/root$DB"
	ok "$who: ... and SQLite's -wal and -shm" test -e "/proc/$P/root$DB-wal" -a \
		-e "/proc/$P/root$DB-shm"
	ok "$who: ... and its scratch directory" test -d "/proc/$P/root$st/state/fetch/tmp"
	is "$(ls -A "/proc/$P/root$st/state" | tr '\n' ' ')" \
		"fetch lorebot.db lorebot.db-shm lorebot.db-wal " \
		"$who: nothing else of the state directory"
	ok "$who: not the jobs" unseen "$st/state/jobs/1/log"
	ok "$who: not the outbox" unseen "$st/outbox/new"
	ok "$who: not the repository" unseen "$st/repo.git/HEAD"
	ok "$who: not check's cache" unseen "$st/cache/x"
	ok "$who: not the SMTP credentials (/dev/null in their place)" test -c "/proc/$P/root$CRED"
	unlike "$(cat "/proc/$P/root$CRED" 2>/dev/null)" "hunter2" "$who: ... not their text"
	like "$(cat "/proc/$P/root$CONF")" "statedir" "$who: the configuration, read-only"
	ok "$who: ... read-only" grep -q " $CONF ro," "/proc/$P/mountinfo" ||
		grep " $CONF " "/proc/$P/mountinfo" | grep -q ' ro[, ]'
	for d in /run /home /root /var; do
		is "$(ls -A "/proc/$P/root$d" 2>/dev/null | head -3)" "" "$who: nothing of $d"
	done
	ok "$who: the database is bound read-write" \
		sh -c "grep ' $DB ' /proc/$P/mountinfo | grep -q ' rw[, ]'"
	ok "$who: its root is read-only" \
		sh -c "awk '\$5 == \"/\"' /proc/$P/mountinfo | grep -q ' ro[, ]'"
	# its mail parser: a jail of its own (lib/jail.c), made before any mail
	I=$(pgrep -P "$P" | head -1)
	H=$(pgrep -P "${I:-0}" | head -1)
	ok "$who: the fetch's mail parser runs" test -n "$H"
	st_of() { sed -n "s/^$1:[[:space:]]*//p" "/proc/$H/status"; }
	is "$(st_of CapEff)/$(st_of CapPrm)/$(st_of CapBnd)" \
		0000000000000000/0000000000000000/0000000000000000 \
		"$who: parser: no capability, none to gain"
	is "$(st_of NoNewPrivs)" 1 "$who: parser: no new privileges"
	is "$(st_of Seccomp)" 2 "$who: parser: a seccomp filter"
	like "$(st_of NSpid)" '[[:space:]]1$' "$who: parser: PID 1 of a PID namespace of its own"
	for ns in net user mnt ipc; do
		ok "$who: parser: a $ns namespace of its own" \
			test "$(readlink "/proc/$H/ns/$ns")" != "$(readlink "/proc/$P/ns/$ns")"
	done
	is "$(ls -A "/proc/$H/root/" | tr '\n' ' ')" "usr " "$who: parser: a root of /usr only"
	is "$(ls "/proc/$H/fd" | sort -n | tr '\n' ' ')" "2 3 " \
		"$who: parser: no descriptor but stderr and its socket (not the database)"
	ok "$who: parser: /usr read-only" \
		sh -c "grep ' /usr ' /proc/$H/mountinfo | grep -q ' ro[, ]'"
	# the daemon itself (runuser would answer for it as killed)
	kill -TERM "$DP"
	wait "$D"
	is "$?" 0 "$who: SIGTERM, exit 0"
	unlike "$(cat "$st/d.err")" "AddressSanitizer|runtime error" "$who: no sanitizer report"

	# real passes through the sandbox: search, then git (the mirrors)
	rm -f "$DB" "$DB-wal" "$DB-shm"
	$AS timeout 300 "$LOREBOT" --db "$DB" --config "$CONF" daemon --repo "$st/repo.git" \
		--outbox "$st/outbox" --arch '' --url "$URL" --once >"$st/s.out" 2>"$st/s.err"
	is "$?" 0 "$who: daemon --once by search exits 0"
	stored=$(sql "SELECT count(*) FROM messages")
	ok "$who: ... and stores the lab's mail ($stored)" test "${stored:-0}" -gt 10
	is "$(sql "SELECT count(*) FROM messages WHERE meta IS NULL OR error IS NOT NULL")" 0 \
		"$who: ... every message parsed (in the jail)"
	rm -f "$DB" "$DB-wal" "$DB-shm"
	git config -f "$CONF" list.linux-mm.method git
	git config -f "$CONF" list.linux-mm.url "$URL"
	[ "$who" = user ] && chown lorebot: "$CONF"
	$AS timeout 300 "$LOREBOT" --db "$DB" --config "$CONF" daemon --repo "$st/repo.git" \
		--outbox "$st/outbox" --arch '' --once >"$st/g.out" 2>"$st/g.err"
	is "$?" 0 "$who: daemon --once by the git epochs exits 0"
	is "$(sql "SELECT count(*) FROM messages")" "$stored" "$who: ... stores the same mail"
	ok "$who: ... into its mirror" test -d "$DB.lore/linux-mm/0.git/objects"
	unlike "$(cat "$st/s.err" "$st/g.err")" "AddressSanitizer|runtime error|not fetching" \
		"$who: no sanitizer report, no refusal"
}

run_as "$(id -un)"
if [ "$(id -u)" = 0 ] && id -u lorebot >/dev/null 2>&1 && command -v runuser >/dev/null; then
	run_as user
else
	skip "as user lorebot: needs root and the user lorebot (ci/deps.sh)"
fi
done_testing

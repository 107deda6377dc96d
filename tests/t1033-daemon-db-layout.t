#!/bin/sh
# The README's second form, 'lorebot --db FILE --config C daemon --url
# --repo', with no core.statedir and the state directory inside
# lorebot's own checkout, as make demo keeps demo-state (issue 38, item
# 1): a mailed patch whose Makefile, in the build stage's make, lists
# the state directory, reads the database and its -wal, another job's
# mbox and the outbox, and lists the checkout.  Before, it read them all,
# as root and as lorebot: the stages were told the configuration, not
# the database, so they hid core.statedir's default, and every sandbox
# bound the whole checkout.  Now the daemon hands its state directory
# and outbox to every stage (--hide), a sandbox binds lorebot's binary
# and data, never the checkout, the database is 0600 and each job's
# directory 0700.  A real local lore, the daemon with --once, the fake
# kernel tree of tests/sec-lib.sh; as root, then as the user lorebot.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

command -v bwrap >/dev/null || skip_all "no bwrap (bubblewrap)"
cd "$TMP" || exit 1
chmod 0755 "$TMP"

# lorebot's checkout, as a user has it: the binary in build/, its data
# beside it, the state directory inside
CO=$TMP/checkout
mkdir -p "$CO/build" "$CO/config" "$CO/tests"
cp "$LOREBOT" "$CO/build/lorebot"
cp -r "$LOREBOT_SRC/templates" "$CO/templates"
cp -r "$LOREBOT_SRC/config/fragments" "$CO/config/fragments"
echo 'checkout secret' >"$CO/tests/secret.txt"
BIN=$CO/build/lorebot

fake_kernel
printf 'From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Bob <bob@example.org>\nTo: linux-mm@kvack.org\nSubject: hello\nDate: Mon, 1 Jun 2026 09:00:00 +0000\nMessage-ID: <hello@example.org>\n\nhello\n\n' >start.mbox

# the spy: what the build's make prints, at parse time, of what it sees
spy_makefile() {
	cat <<-EOF
	\$(info SPY ran as \$(shell id -u))
	\$(info SPY state: \$(shell ls -A $1 2>&1 | tr '\n' ' '))
	\$(info SPY db: \$(shell head -c 15 $1/lorebot.db 2>&1))
	\$(info SPY wal: \$(shell od -An -tx1 -N4 $1/lorebot.db-wal 2>&1 | tr -d ' \n'))
	\$(info SPY jobs: \$(shell ls -A $1/jobs 2>&1 | tr '\n' ' '))
	\$(info SPY mbox: \$(shell cat $1/jobs/*/series.mbox 2>&1 | grep -m1 -i '^message-id'))
	\$(info SPY outbox: \$(shell ls -A $1/outbox/new 2>&1 | head -c 200))
	\$(info SPY checkout: \$(shell ls -A $CO 2>&1 | tr '\n' ' '))
	\$(info SPY checkout file: \$(shell cat $CO/tests/secret.txt 2>&1))
	EOF
}

# run_as WHO [AS...]: a pass in $TMP/WHO; the state in the checkout
run_as() {
	who=$1
	shift
	st=$TMP/$who
	STATE=$CO/state-$who
	DB=$STATE/lorebot.db
	CONF=$st/lorebot.conf
	rm -rf "$st" "$STATE"
	mkdir -p "$st/cache" "$STATE"
	git clone -q --bare "$FK" "$st/repo.git"
	git -C "$FKW" checkout -q -B spy main
	spy_makefile "$STATE" >"$FKW/mm/Makefile"
	git -C "$FKW" -c user.name=Eve -c user.email=eve@example.com commit -qam "mm: spy ($who)

Signed-off-by: Eve <eve@example.com>"
	git -C "$FKW" checkout -q -B good main
	echo "int good_$who;" >"$FKW/mm/good.c"
	git -C "$FKW" add -A
	git -C "$FKW" -c user.name=Ann -c user.email=ann@example.com commit -qm "mm: good ($who)

Signed-off-by: Ann <ann@example.com>"
	rm -rf "$st/mail"
	git -C "$FKW" format-patch -q --base=main --to=linux-mm@kvack.org -o "$st/mail" -1 spy
	git -C "$FKW" format-patch -q --base=main --to=linux-mm@kvack.org -o "$st/mail" -1 good
	git -C "$FKW" checkout -q main
	LAB=$st/lab
	URL=$("$LORE_LAB" setup "$LAB" "$(free_port)" "$TMP/start.mbox" 2>"$st/lab.err")/linux-mm/ || {
		cat "$st/lab.err" >&2
		echo "Bail out! cannot start the lore lab"
		exit 1
	}
	cleanup_add "'$LORE_LAB' stop '$LAB'"
	for f in "$st"/mail/*.patch; do
		"$LORE_LAB" deliver "$LAB" <"$f" || return 1
	done
	# the README's second form: no core.statedir; the hostile tree's
	# Makefile compiles nothing a series adds (so no coverage to ask)
	lore_conf daemon.window=0 boot.enable=false reply.mode=outbox build.arch=x86_64 \
		build.ccache=false build.timeout=2m core.cachedir="$st/cache" \
		build.mincoverage=0 build.repair=false
	if [ "$who" = user ]; then
		chown -R lorebot: "$STATE" "$st/cache" "$st/repo.git"
	fi
	"$@" timeout 600 "$BIN" --db "$DB" --config "$CONF" daemon --url "$URL" \
		--repo "$st/repo.git" --outbox "$STATE/outbox" --arch x86_64 --once \
		>"$st/d.out" 2>"$st/d.err"
	is "$?" 0 "$who: daemon --once exits 0"
	unlike "$(cat "$st/d.err")" "AddressSanitizer|runtime error" "$who: no sanitizer report"
	spy=$(grep -rh '^SPY' "$STATE/jobs" 2>/dev/null | sort -u)
	diag "$spy"
	like "$spy" "SPY ran as" "$who: the spy's make ran"
	build=$(sqlite3 "$DB" "SELECT r.status FROM results r JOIN versions v ON v.id = r.version
		WHERE r.stage = 'build' AND v.title LIKE 'mm: good%'")
	is "$build" ok "$who: the good series built"
	unlike "$spy" "SQLite format" "$who: the build could not read the database"
	unlike "$spy" "SPY wal: 377f068" "$who: nor its -wal"
	unlike "$spy" "SPY state: .*(lorebot|jobs|outbox)" "$who: nor list the state directory"
	unlike "$spy" "SPY jobs: [0-9]" "$who: nor the jobs"
	unlike "$spy" "SPY mbox: [Mm]essage-[Ii][Dd]" "$who: nor read another job's mbox"
	unlike "$spy" "SPY outbox: [^ ]*[0-9]" "$who: nor the outbox"
	unlike "$spy" "SPY checkout: .*tests" \
		"$who: of the checkout it sees only lorebot's binary and data (the state an empty mount point)"
	unlike "$spy" "checkout secret" "$who: nor reads the rest of it"
	like "$spy" "SPY checkout: .*build" "$who: ... it sees lorebot's binary there"
	is "$(stat -c %a "$DB")" 600 "$who: the database is 0600"
	is "$(find "$STATE/jobs" -mindepth 1 -maxdepth 1 -type d -perm /077 ! -perm 711 | head -3)" "" \
		"$who: no job's directory can be listed or read by others (0700; 0711 for build.user)"
	"$LORE_LAB" stop "$LAB"
}

run_as root
if [ "$(id -u)" = 0 ] && id -u lorebot >/dev/null 2>&1 && runuser -u lorebot -- test -x "$BIN"; then
	run_as user runuser -u lorebot -- env HOME="$TMP"
else
	for i in $(seq 16); do skip "no user lorebot that can run $BIN"; done
fi
done_testing

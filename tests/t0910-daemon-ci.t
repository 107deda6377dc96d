#!/bin/sh
# The whole bot on real parts: a series delivered to the local lore while
# the daemon runs is picked up by its polls (the delay is printed, not
# asserted), applied to mm-new, checked, built and booted on x86_64,
# arm64 and riscv, shown on the dashboard per arch and answered by one
# threaded reply at a real SMTP server.  The daemon is killed with
# SIGKILL while a kernel builds; after a restart the series completes,
# the database is consistent and the reply is sent once.
# schedule: last 3.6 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"
. "$LOREBOT_SRC/tests/boot-lib.sh"
boot_need_all
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"

# a lore whose only message is not a patch
lab_setup "$FIXTURES/daemon/not-a-patch.mbox"
R=$TMP/mm.git
mm_clone "$R"
smtp_start
# the reply's mechanics, not the noise policy (t0708): a series of two
# comments has only style findings, or none, so both are mailed here
lore_conf build.sparse=true daemon.window=5m reply.mode=smtp "smtp.url=smtp://127.0.0.1:$SMTP_PORT" \
	smtp.timeout=10s list.linux-mm.pollinterval=2s reply.style=mail reply.clean=true
DPORT=$(free_port)
start_daemon() {
	"$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" --repo "$R" \
		--arch x86_64,arm64,riscv "$@" 2>>"$TMP/daemon.err" &
	DPID=$!
}
# wait_for SECONDS QUERY: until the query prints something other than 0
wait_for() {
	_end=$(($(date +%s) + $1))
	while [ "$(sql "$2")" = 0 ]; do
		[ "$(date +%s)" -lt "$_end" ] || return 1
		kill -0 "$DPID" 2>/dev/null || return 1
		sleep 1
	done
}

start_daemon --listen "127.0.0.1:$DPORT"
cleanup_add "kill -9 $DPID 2>/dev/null"
ok "the daemon is up and has polled once" \
	wait_for 60 "SELECT count(*) FROM messages"

make_series "$TMP/mail" ci 1
delivered=$(date +%s)
deliver_dir "$TMP/mail/ci-v1"
COVER=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$TMP"/mail/ci-v1/0000-*.patch)
ok "the new series was fetched by the daemon's polls" \
	wait_for 120 "SELECT count(*) FROM versions WHERE id = '$COVER'"
diag "picked up $(($(date +%s) - delivered)) s after delivery (polls every 2 s)"

# kill -9 while a kernel builds
ok "a build job starts" \
	wait_for 1800 "SELECT count(*) FROM jobs WHERE kind = 'build' AND state = 'running'"
sleep 5
killed=$(sql "SELECT arch FROM jobs WHERE kind = 'build' AND state = 'running'")
kill -9 "$DPID"
wait "$DPID" 2>/dev/null
# the job runner dies with its parent (PR_SET_PDEATHSIG), and make with it
_i=0
while pgrep -f "job run [0-9]+ --repo $R" >/dev/null && [ $_i -lt 60 ]; do
	_i=$((_i + 1))
	sleep 1
done
ok "no job runner is left after the kill" sh -c "! pgrep -f 'job run [0-9]+ --repo $R'"
is "$(mails)" 0 "no reply before the series is done"

start_daemon --once
wait "$DPID"
is "$?" 0 "the restarted daemon (--once) finishes everything and exits 0"
like "$(cat "$TMP/daemon.err")" "requeued|again|recover" "the restart takes the killed job back"
is "$(sql "SELECT count(*) FROM jobs WHERE version = '$COVER' AND state != 'done'")" 0 \
	"every job of the series is done"
is "$(sql "SELECT group_concat(kind || ':' || arch, ',') FROM (SELECT kind, arch FROM jobs
	WHERE version = '$COVER' AND kind IN ('build', 'boot') ORDER BY kind, arch)")" \
	"boot:arm64,boot:riscv,boot:x86_64,build:arm64,build:riscv,build:x86_64" \
	"one build and one boot job per arch"
# a kill of the daemon is not the job's failure: the attempt is given
# back and counted as an interruption (daemon.attempts stays whole)
is "$(sql "SELECT interrupts || ':' || attempts FROM jobs WHERE version = '$COVER'
	AND kind = 'build' AND arch = '$killed'")" "1:1" \
	"the build killed on $killed was interrupted once and ran again"
is "$(sql "SELECT group_concat(stage || ':' || coalesce(arch, '') || ':' || status, ',') FROM
	(SELECT stage, arch, status FROM results WHERE version = '$COVER' ORDER BY stage, arch)")" \
	"apply::applied,boot:arm64:ok,boot:riscv:ok,boot:x86_64:ok,build:arm64:ok,build:riscv:ok,build:x86_64:ok,check::$(sql "SELECT status FROM results WHERE version = '$COVER' AND stage = 'check'")" \
	"each stage recorded once: applied, built and booted ok on every arch"
is "$(sql "PRAGMA integrity_check")" ok "the database is consistent"
is "$(sql "SELECT count(*) FROM (SELECT version, stage, arch FROM results
	GROUP BY version, stage, arch HAVING count(*) > 1)")" 0 "no stage recorded twice"

# one reply, threaded into the series: to the message whose findings it
# reports (like 0-day's), with the cover letter first in References
is "$(mails)" 1 "one reply at the SMTP server"
M=$(ls "$SMTP_DIR"/*.eml | head -1)
irt=$(hdr "$M" In-Reply-To | tr -d '<>')
parent=$(grep -l -i "^Message-ID: <$irt>" "$TMP"/mail/ci-v1/*.patch)
ok "In-Reply-To: a message of the series ($irt)" test -n "$parent"
like "$(hdr "$M" References)" "^<$COVER>" "References: the cover letter first"
is "$(hdr "$M" Subject)" "Re: $(sed -n 's/^Subject: //p' "$parent" | head -1)" \
	"Subject: Re: the subject of the message replied to"
like "$(cat "$M")" "base: +$(git --git-dir="$R" rev-parse mm-new)" "the reply names the base"
like "$(hdr "$M" X-Lorebot-Outcome)" "^(check|build|boot|clean)" "and the outcome it reports"
is "$(sql "SELECT count(*) FROM replies WHERE state = 'sent'")" 1 "one reply recorded as sent"

# a second pass sends nothing and runs nothing
start_daemon --once
wait "$DPID"
is "$(mails)" 1 "still one reply after another pass"

# the dashboard shows the series per arch
"$LOREBOT" --db "$DB" --config "$CONF" serve --listen "127.0.0.1:$DPORT" \
	>/dev/null 2>"$TMP/serve.err" &
SPID=$!
cleanup_add "kill $SPID 2>/dev/null"
_i=0
until curl -sf "http://127.0.0.1:$DPORT/api/series" >"$TMP/api.json" 2>/dev/null; do
	_i=$((_i + 1))
	[ $_i -lt 100 ] || break
	sleep 0.1
done
SID=$COVER
curl -sf "http://127.0.0.1:$DPORT/api/series/$SID" >"$TMP/one.json"
is "$?" 0 "the dashboard serves the series"
like "$(cat "$TMP/one.json")" '"build".*"x86_64".*"arm64".*"riscv"|"arch": *"x86_64"' \
	"the dashboard's series has per-arch results"
# the series page as a browser shows it (headless Chromium)
CHROMIUM=$(command -v chromium || command -v chromium-browser)
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
	--disable-background-networking --disable-component-update --disable-sync \
	--no-first-run --user-data-dir="$TMP/chrome" --dump-dom \
	"http://127.0.0.1:$DPORT/series/$SID" >"$TMP/one.dom" 2>"$TMP/chrome.err"
is "$?" 0 "Chromium loads the series page"
for a in x86_64 arm64 riscv; do
	like "$(cat "$TMP/one.dom")" "$a" "the series page shows $a"
done
like "$(cat "$TMP/one.dom")" "mm: the ci series" "and the series' title"
kill "$SPID"

is "$(cat "$TMP"/jobs/*/job.log 2>/dev/null | grep -c 'Sanitizer')" 0 \
	"no sanitizer report from any job runner"
done_testing

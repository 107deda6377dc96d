#!/bin/sh
# make demo: the whole bot on local defaults, with real parts.
#
#  1. the mm-new stand-in: Debian's linux-source-6.12 as a git repository
#     (ci/mm-tree.sh, cached per machine) and a bare clone for the bot;
#  2. a local lore: public-inbox-httpd on 127.0.0.1 (tests/lore-lab.sh)
#     holding the three real linux-mm threads of tests/fixtures/lore plus a
#     demo series made for the stand-in: patch 1/2 adds a WARN_ON_ONCE() in
#     madvise_populate() (the mm kselftests run into it on every arch),
#     patch 2/2 an unused variable that only arm64 compiles;
#  3. lorebot daemon --once: fetch, assemble, apply to mm-new, check,
#     build every patch and boot the mm kselftests on each arch, reply
#     into a local outbox (progress on stderr: kernel builds take minutes,
#     the first run on a machine builds each arch's base kernel once);
#  4. the dashboard, left running on 127.0.0.1, and the outbox.
#
# Started as root, the bot (daemon, status, dashboard) runs as the
# unprivileged user lorebot, as config/lorebot.service runs it: the state
# is lorebot's, its build cache $LOREBOT_CACHE/user-lorebot (root's
# builds there belong to build.user and are not reused).
#
# Environment: DEMO_STATE (default ./demo-state, rebuilt on every run),
# DEMO_PORT (dashboard, default 8080 or a free port), DEMO_ARCHS
# (default x86_64,arm64,riscv; empty: no builds, no boots), LOREBOT (default build/lorebot),
# DEMO_USER (default lorebot when started as root; empty: the bot runs as
# whoever started the demo).
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
STATE=${DEMO_STATE:-$SRC/demo-state}
ARCHS=${DEMO_ARCHS-x86_64,arm64,riscv}
LAB=$STATE/lab
if [ "$(id -u)" = 0 ]; then
	DEMO_USER=${DEMO_USER-lorebot}
else
	DEMO_USER=
fi

say() {
	printf '\n== %s\n' "$*" >&2
}

free_port() {
	python3 -c 'import socket, sys
want = int(sys.argv[1])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", want))
except OSError:
    s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])' "$1"
}

# a re-run starts over: stop what the last run left running
if [ -f "$STATE/serve.pid" ]; then
	kill "$(cat "$STATE/serve.pid")" 2>/dev/null || true
	sleep 0.5
fi
[ -f "$LAB/.lore-lab" ] && tests/lore-lab.sh stop "$LAB" || true
rm -rf "$STATE"
mkdir -p "$STATE"

# bot ARGS: lorebot as DEMO_USER, with its own build cache
AS=
if [ -n "$DEMO_USER" ]; then
	id -u "$DEMO_USER" >/dev/null 2>&1 ||
		{ echo "demo: no user '$DEMO_USER' (make deps creates lorebot)" >&2; exit 1; }
	runuser -u "$DEMO_USER" -- test -x "$LOREBOT" ||
		{ echo "demo: user '$DEMO_USER' cannot run $LOREBOT (a private directory on its path?)" >&2; exit 1; }
	CACHE=${LOREBOT_CACHE:-/var/cache/lorebot}/user-$DEMO_USER
	mkdir -p "$CACHE"
	chown "$DEMO_USER": "$CACHE"
	AS="runuser -u $DEMO_USER -- env HOME=$STATE LOREBOT_CACHE=$CACHE"
fi
bot() {
	$AS "$LOREBOT" --db "$STATE/lorebot.db" --config "$STATE/lorebot.conf" "$@"
}

say "the mm-new stand-in (Debian's linux-source-6.12; imported once per machine)"
MM=$(ci/mm-tree.sh)
git clone -q --bare --shared "$MM" "$STATE/mm.git"
BASE=$(git --git-dir="$STATE/mm.git" rev-parse mm-new)
echo "mm-new is $BASE ($MM)" >&2

say "the demo series, as git send-email would post it"
mkdir -p "$STATE/mail"
python3 ci/demo-series.py "$STATE/mail" "$BASE" tests/fixtures/boot/warn-madvise-populate.patch \
	tests/fixtures/build/arm64-warning/0001-*.patch
ls "$STATE/mail" >&2

say "a local lore: public-inbox-httpd with three real linux-mm threads and the demo series"
LPORT=$(free_port 8081)
URL=$(tests/lore-lab.sh setup "$LAB" "$LPORT")/linux-mm/
for f in "$STATE"/mail/*.eml; do
	tests/lore-lab.sh deliver "$LAB" <"$f"
done
echo "lore: $URL" >&2

cat >"$STATE/lorebot.conf" <<EOF
# the demo's configuration: see config/lorebot.conf for every key
[core]
	statedir = $STATE
[lore]
	minpoll = 0
	indexlag = 0
[daemon]
	window = 0
[reply]
	mode = outbox
EOF

[ -n "$DEMO_USER" ] && chown -R "$DEMO_USER": "$STATE/mm.git" "$STATE/lorebot.conf" &&
	chown "$DEMO_USER": "$STATE"
say "lorebot daemon --once as ${DEMO_USER:-$(id -un)}: apply, check, build and boot on $ARCHS, reply"
bot daemon \
	--url "$URL" --repo "$STATE/mm.git" --outbox "$STATE/outbox" \
	--arch "$ARCHS" --once
tests/lore-lab.sh stop "$LAB"

say "what the bot did (lorebot status)"
bot status

PORT=$(free_port "${DEMO_PORT:-8080}")
setsid $AS "$LOREBOT" --db "$STATE/lorebot.db" --config "$STATE/lorebot.conf" serve \
	--listen "127.0.0.1:$PORT" --arch "$ARCHS" >"$STATE/serve.log" 2>&1 &
echo $! >"$STATE/serve.pid"
i=0
until curl -sf "http://127.0.0.1:$PORT/api/series" >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 100 ]; then
		cat "$STATE/serve.log" >&2
		echo "the dashboard did not start" >&2
		exit 1
	fi
	sleep 0.1
done

# what the bot answered on the demo series: one reply per outcome
for f in $(grep -l '^References:.*git.test@lorebot.invalid' "$STATE"/outbox/new/* 2>/dev/null); do
	say "a reply to the demo series ($(sed -n 's/^X-Lorebot-Outcome: //p' "$f"), $f)"
	sed -n '/^Subject:/p; /^$/,$p' "$f" | head -60
	echo "[...]"
done
cat <<EOF

Dashboard: http://127.0.0.1:$PORT/   (stop it: kill \$(cat $STATE/serve.pid))
Outbox:    $STATE/outbox/new/ ($(ls "$STATE"/outbox/new | wc -l) replies, one file per mail)
Database:  $STATE/lorebot.db      (lorebot --db $STATE/lorebot.db status)
Job logs:  $STATE/jobs/
EOF

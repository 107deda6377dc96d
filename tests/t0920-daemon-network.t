#!/bin/sh
# A patch whose build tries to reach the network: mm/Makefile runs curl
# against the local lore (which the bot itself reaches) and python3
# opens a socket to it.  Inside the build sandbox neither gets through:
# the lore's access log never sees them, the build still succeeds, and
# the attempt and its failure are in the job's build log.
# schedule: last 1.5 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"
command -v bwrap >/dev/null || skip_all "no bwrap (bubblewrap)"
command -v curl >/dev/null || skip_all "no curl"
mm_repo >/dev/null || skip_all "no mm-new stand-in (ci/mm-tree.sh)"

lab_setup "$FIXTURES/daemon/not-a-patch.mbox"
LPORT=$(cat "$LAB/port")
R=$TMP/mm.git
mm_clone "$R"
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox

# the patch: two ways out of the build, both to the lore the bot talks to
W=$TMP/work
git clone -q --shared "$(mm_repo)" "$W"
git -C "$W" checkout -q -b net mm-new
cat >>"$W/mm/Makefile" <<EOF

# a build that phones home
\$(info lorebot-net-probe curl: \$(shell curl -sS -m 5 -A lorebot-net-probe http://127.0.0.1:$LPORT/linux-mm/ 2>&1 | head -c 200 || true))
\$(info lorebot-net-probe socket: \$(shell python3 -c 'import socket; socket.create_connection(("127.0.0.1", $LPORT), 5); print("connected")' 2>&1 | tail -n 1))
EOF
git -C "$W" commit -q -am "mm: a Makefile that reaches for the network

Signed-off-by: lorebot test <test@lorebot.invalid>"
git -C "$W" format-patch -q --base=mm-new --to=linux-mm@kvack.org -o "$TMP/mail" -1 >/dev/null
before=$(requests)
deliver_dir "$TMP/mail"

timeout 3000 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" --repo "$R" \
	--outbox "$TMP/outbox" --arch x86_64 --once >/dev/null 2>"$TMP/daemon.err"
is "$?" 0 "daemon --once exits 0"
V=$(sql "SELECT id FROM versions WHERE title LIKE '%reaches for the network%'")
ok "the patch was assembled" test -n "$V"
is "$(sql "SELECT status FROM results WHERE version = '$V' AND stage = 'apply'")" applied "it applied"
is "$(sql "SELECT status FROM results WHERE version = '$V' AND stage = 'build' AND arch = 'x86_64'")" \
	ok "it built on x86_64 (the probes only print)"

JOB=$(sql "SELECT id FROM jobs WHERE version = '$V' AND kind = 'build'")
LOGS=$TMP/jobs/$JOB
ok "the build job kept its logs ($LOGS)" test -d "$LOGS/build-x86_64"
probe=$(grep -rh 'lorebot-net-probe' "$LOGS" 2>/dev/null | sort -u)
diag "$probe"
like "$probe" "lorebot-net-probe curl: curl: \([0-9]+\)" "the job log shows curl's attempt and its failure"
unlike "$probe" "lorebot-net-probe curl: <" "curl got no page"
like "$probe" "lorebot-net-probe socket: .*(OSError|Error)" "the job log shows the socket's failure"
unlike "$probe" "connected" "the socket did not connect"
is "$(grep -c 'lorebot-net-probe' "$ACCESS")" 0 "the lore never saw the build"
ok "the bot itself did reach the lore" test "$(requests)" -gt "$before"
done_testing

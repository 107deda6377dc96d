#!/bin/sh
# Slowloris: 70 connections that trickle a header line every few seconds
# stopped the dashboard answering.  Now one address holds at most 8
# connections waiting for their request; one more from it closes the
# one that has waited longest.  Another client is answered while the
# trickling goes on, and so is a client on the attacker's own address
# (issue 38: /healthz from 127.0.0.1 answered none of 11 checks, as
# every client behind a reverse proxy would).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"

fill_db "$FIXTURES"/lore/*.mbox
serve_start
PORT=$WEB_PORT

# the attacker, from 127.0.0.1: 70 connections, a header line each every
# 2 s; it reports how many the server closed before the trickle ended
$PY - "$PORT" >"$TMP/loris.out" 2>&1 <<'EOF' &
import socket, sys, time
port = int(sys.argv[1])
socks = []
for i in range(70):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    socks.append(s)
print("open", len(socks), flush=True)
closed = set()
for rnd in range(10):
    time.sleep(2)
    for i, s in enumerate(socks):
        if i in closed:
            continue
        try:
            s.sendall(b"X-a: b\r\n")
            s.setblocking(False)
            try:
                if s.recv(1) == b"":
                    closed.add(i)
            except BlockingIOError:
                pass
            s.setblocking(True)
        except OSError:
            closed.add(i)
    print("round", rnd, "closed", len(closed), flush=True)
print("held", 70 - len(closed), flush=True)
EOF
LORIS=$!
cleanup_add "kill $LORIS"
until grep -q "^round 1 " "$TMP/loris.out" 2>/dev/null; do
	kill -0 $LORIS 2>/dev/null || break
	sleep 0.2
done
like "$(head -1 "$TMP/loris.out")" "^open 70" "the attacker opened its 70 connections"

# another client (127.0.0.2) while the trickle goes on
code=$(curl -s --max-time 20 --interface 127.0.0.2 -o "$TMP/page.html" -w '%{http_code}' "$WEB/")
is "$code" 200 "the dashboard answers another client during the attack"
ok "with the page" grep -q '</html>' "$TMP/page.html"
code=$(curl -s --max-time 20 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "$WEB/api/series")
is "$code" 200 "and the API"
# a health check from the attacker's own address, 11 times
answered=0
for i in 1 2 3 4 5 6 7 8 9 10 11; do
	code=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "$WEB/healthz")
	[ "$code" = 200 ] && answered=$((answered + 1))
done
is "$answered" 11 "/healthz from 127.0.0.1, the attacker's address, answers 11 of 11 checks"

wait $LORIS
held=$(sed -n 's/^held //p' "$TMP/loris.out")
ok "the attacker held at most 8 connections (held $held)" test -n "$held" -a "${held:-99}" -le 8
serve_stop
done_testing

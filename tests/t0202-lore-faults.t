#!/bin/sh
# Faults between lorebot and lore: HTTP 500, a slow server, a truncated
# t.mbox.gz, a connection cut mid-response, the server stopped mid-fetch.
# lorebot reports, backs off, and the next good pass imports everything:
# nothing lost, nothing twice.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

lab_setup
proxy_start
lore_conf
fetch() {
	lorebot --config "$CONF" --db "$DB" fetch --url "$PURL" --json "$@"
}
intact() {
	is "$(sql 'SELECT count(*), count(DISTINCT msgid) FROM messages')" "$1|$1" \
		"$2: $1 messages, each once"
}
plog() {
	python3 -c "import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r['method'], r['path'].split('?')[0], r['status'], r['fault'])" "$PLOG"
}

# HTTP 500 twice, then good: retried within the pass
faults '[{"match": "x=m", "action": "status:500", "times": 2}]'
fetch >"$TMP/f.json" 2>"$TMP/f.err"
is "$?" 0 "500 twice: the pass still succeeds"
is "$(json "$TMP/f.json" "(d['lists'][0]['status'], d['lists'][0]['retries'], d['lists'][0]['new'])")" \
	"('ok', 2, 57)" "after two retries, with all 57 messages"
like "$(cat "$TMP/f.err")" "POST .*x=m: HTTP 500; retry 1/2 in [0-9.]+ s" "each retry is reported"
is "$(plog | grep -c 'POST /linux-mm/ 500 status:500')" 2 "the proxy saw the two failed POSTs"
intact 57 "500 twice"

# HTTP 500 on every search: the pass fails, reports, backs off
rm -f "$DB"*
faults '[{"match": "x=m", "action": "status:500", "times": -1}]'
fetch >"$TMP/f.json" 2>"$TMP/f.err"
is "$?" 3 "500 always: fetch exits 3"
like "$(cat "$TMP/f.err")" "HTTP 500 \(gave up after 3 attempts\)" "it says why"
is "$(json "$TMP/f.json" "(d['lists'][0]['status'], d['lists'][0]['failures'], d['lists'][0]['next_poll'] is not None)")" \
	"('failed', 1, True)" "the failure is counted and the next poll is put off"
is "$(sql 'SELECT failures, last_error IS NOT NULL, next_poll > last_poll FROM lists')" "1|1|1" \
	"the back-off is in the database"
is "$(sql 'SELECT count(*) FROM messages')" 0 "nothing half-stored"
# back-off: until next_poll, a fetch does nothing (even with minpoll 0)
sqlite3 "$DB" "UPDATE lists SET next_poll = strftime('%s', 'now') + 3600"
n0=$(wc -l <"$PLOG")
fetch >"$TMP/f.json"
is "$(json "$TMP/f.json" "d['lists'][0]['status']")" not-due "while backing off, no poll"
is "$(wc -l <"$PLOG")" "$n0" "and no request"
lorebot --config "$CONF" --db "$DB" fetch --url "$PURL" >"$TMP/f.txt"
like "$(cat "$TMP/f.txt")" "backing off after failed polls" "the text says it is backing off"
faults '[]'
fetch --force >"$TMP/f.json"
is "$(json "$TMP/f.json" "(d['lists'][0]['status'], d['lists'][0]['new'], d['lists'][0]['failures'])")" \
	"('ok', 57, 0)" "--force after the fault: everything, failures reset"
intact 57 "after 500s"

# a slow response past the timeout, once
rm -f "$DB"*
lore_conf lore.timeout=1s
faults '[{"match": "x=m", "action": "slow:3", "times": 1}]'
fetch >"$TMP/f.json" 2>"$TMP/f.err"
is "$?" 0 "slow once: the pass succeeds"
like "$(cat "$TMP/f.err")" "(timed out|Timeout).*retry 1/2" "the timeout is reported and retried"
is "$(json "$TMP/f.json" "(d['lists'][0]['retries'], d['lists'][0]['new'])")" "(1, 57)" \
	"one retry, all messages"
intact 57 "slow"

# the connection is cut in the middle of the mbox
rm -f "$DB"*
lore_conf
faults '[{"match": "x=m", "action": "cut", "times": 1}]'
fetch >"$TMP/f.json" 2>"$TMP/f.err"
is "$(json "$TMP/f.json" "(d['lists'][0]['status'], d['lists'][0]['retries'], d['lists'][0]['new'])")" \
	"('ok', 1, 57)" "a response cut mid-body is retried"
like "$(cat "$TMP/f.err")" "retry 1/2" "and reported"
intact 57 "cut"

# a truncated t.mbox.gz (a complete HTTP response with half the gzip data)
T=20250115033807.46664-1-21cnbao@gmail.com
faults '[{"match": "t.mbox.gz", "action": "truncate", "times": 1}]'
lorebot --config "$CONF" --db "$TMP/t.db" fetch --url "$PURL" --thread "$T" --json \
	>"$TMP/t.json" 2>"$TMP/t.err"
is "$?" 0 "a truncated t.mbox.gz once: the thread is still fetched"
like "$(cat "$TMP/t.err")" "truncated gzip data.*retry 1/2" "the truncation is noticed and retried"
is "$(json "$TMP/t.json" "d['lists'][0]['new']")" 17 "all 17 messages of the thread"
faults '[{"match": "t.mbox.gz", "action": "truncate", "times": -1}]'
lorebot --config "$CONF" --db "$TMP/t2.db" fetch --url "$PURL" --thread "$T" \
	>/dev/null 2>"$TMP/t2.err"
is "$?" 3 "truncated every time: fails"
like "$(cat "$TMP/t2.err")" "truncated gzip data at input byte [0-9]+ \(gave up after 3 attempts\)" \
	"with the reason"
is "$(sqlite3 "$TMP/t2.db" 'SELECT count(*) FROM messages')" 0 "and stores nothing of it"

# the server stopped in the middle of a fetch of several windows
rm -f "$DB"*
lore_conf lore.batch=10
# the first two windows go through, the third stops the server
python3 - "$RULES" "$LORE_LAB" "$LAB" <<'EOF'
import json, sys
json.dump([{"match": "x=m", "action": "", "times": 2},
           {"match": "x=m", "action": f"exec:'{sys.argv[2]}' stop '{sys.argv[3]}'", "times": 1}],
          open(sys.argv[1], "w"))
EOF
fetch >"$TMP/f.json" 2>"$TMP/f.err"
is "$?" 3 "server stopped mid-fetch: fetch exits 3"
is "$(json "$TMP/f.json" "(d['lists'][0]['status'], d['lists'][0]['windows'])")" "('failed', 2)" \
	"two windows were stored before the server went away"
like "$(cat "$TMP/f.err")" "gave up after 3 attempts" "the failure is reported"
is "$(sql 'PRAGMA integrity_check')" ok "the database is intact"
stored=$(sql 'SELECT count(*) FROM messages')
is "$(sql 'SELECT count(*) = count(DISTINCT msgid) AND count(*) >= 20 FROM messages')" 1 \
	"what was stored ($stored messages) is stored once"
"$LORE_LAB" start "$LAB" >/dev/null 2>&1
faults '[]'
fetch --force >"$TMP/f.json" 2>"$TMP/f.err"
is "$(json "$TMP/f.json" "(d['lists'][0]['status'], d['lists'][0]['new'] + $stored)")" "('ok', 57)" \
	"the next good pass brings the rest"
intact 57 "after the server came back"
lorebot --db "$DB" series --json >"$TMP/db.json"
cat "$FIXTURES"/lore/*.mbox >"$TMP/all.mbox"
lorebot series --mbox "$TMP/all.mbox" --json >"$TMP/mbox.json" 2>/dev/null
is "$(python3 -c "import json,sys
print(json.load(open(sys.argv[1]))['series'] == json.load(open(sys.argv[2]))['series'])" \
	"$TMP/db.json" "$TMP/mbox.json")" True "and the series are those of the fixtures"
done_testing

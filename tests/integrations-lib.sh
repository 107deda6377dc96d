# Helpers for the tests of lorebot's integrations (t0711-t0713, t0955);
# source after tests/lib.sh.
#
#	pw_start [ARGS]     the patchwork fake (tests/patchwork-fake.py) on a
#	                    free port, knowing the patches of $TMP/patches.json
#	                    ({msgid: id}); token a-secret-token in $TMP/token;
#	                    sets PW_PORT, PW_PID; requests logged to $TMP/pw.log
#	pw_stop             stop it
#	pw_checks           the checks it holds (JSON)
#	pw_invalid          how many requests broke patchwork's API schema
#	pw_per_pair         "checks pairs max": checks, distinct (patch,
#	                    context) pairs, the most checks of one pair
#	kcidb_start         the KCIDB submission fake (tests/kcidb-fake.py):
#	                    KCIDB_URL, token a-kcidb-token in $TMP/kcidb-token
#	kcidb_submissions   what it received (JSON)

# a helper process that prints "ready PORT" once it listens
_fake_wait() {
	_i=0
	until grep -q "^ready $2\$" "$1" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt 600 ] || ! kill -0 "$3" 2>/dev/null; then
			cat "$1" >&2
			echo "Bail out! $4 did not start"
			exit 1
		fi
		sleep 0.05
	done
}

pw_start() {
	PW_PORT=$(free_port)
	printf 'a-secret-token\n' >"$TMP/token"
	chmod 600 "$TMP/token"
	rm -f "$TMP/pw.out"
	$PY "$LOREBOT_SRC/tests/patchwork-fake.py" --port "$PW_PORT" \
		--schema "$FIXTURES/patchwork/patchwork.v1.3.yaml" --token a-secret-token \
		--project linux-mm --patches "$TMP/patches.json" --log "$TMP/pw.log" \
		--pidfile "$TMP/pw.pid" "$@" >"$TMP/pw.out" 2>&1 &
	_fake_wait "$TMP/pw.out" "$PW_PORT" $! "the patchwork fake"
	PW_PID=$(cat "$TMP/pw.pid")
	cleanup_add "kill $PW_PID 2>/dev/null"
}

pw_stop() {
	kill "$PW_PID" 2>/dev/null
	wait "$PW_PID" 2>/dev/null
}

pw_checks() {
	curl -s "http://127.0.0.1:$PW_PORT/_fake/checks"
}

pw_invalid() {
	$PY -c 'import json, sys
print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["invalid"]))' "$TMP/pw.log"
}

pw_per_pair() {
	pw_checks | $PY -c 'import collections, json, sys
d = json.load(sys.stdin)
c = collections.Counter((x["msgid"], x["context"]) for x in d)
print(len(d), len(c), max(c.values()) if c else 0)'
}

kcidb_start() {
	_kport=$(free_port)
	printf 'a-kcidb-token\n' >"$TMP/kcidb-token"
	chmod 600 "$TMP/kcidb-token"
	$PY "$LOREBOT_SRC/tests/kcidb-fake.py" --port "$_kport" \
		--schema "$FIXTURES/kcidb/kcidb.v5.3.json" --token a-kcidb-token \
		--pidfile "$TMP/kcidb.pid" >"$TMP/kcidb.out" 2>&1 &
	_fake_wait "$TMP/kcidb.out" "$_kport" $! "the KCIDB fake"
	cleanup_add "kill $(cat "$TMP/kcidb.pid") 2>/dev/null"
	KCIDB_URL=http://127.0.0.1:$_kport/submit
}

kcidb_submissions() {
	curl -s "${KCIDB_URL%/submit}/_fake/submissions"
}

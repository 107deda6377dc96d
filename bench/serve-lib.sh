# Sourced by the dashboard benchmarks: serve_start DB starts `lorebot
# serve` on a free port of 127.0.0.1 (SERVE its pid, PORT the port) and
# waits until it answers; the caller's EXIT trap kills $SERVE.  SERVE_WRAP
# runs it under another command (valgrind).  The templates are the
# source tree's (web.templates), wherever the binary LOREBOT is: a copy
# elsewhere found none and answered every page with HTTP 500.
serve_start() {
	PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	_conf=$(dirname "$1")/serve-bench.conf
	printf '[web]\n\ttemplates = %s\n' "$SRC/templates" >"$_conf"
	# shellcheck disable=SC2086
	${SERVE_WRAP:-} "$LOREBOT" --config "$_conf" --db "$1" serve --listen "127.0.0.1:$PORT" \
		>/dev/null 2>"$_conf.err" &
	SERVE=$!
	_i=0
	until curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz"; do
		_i=$((_i + 1))
		[ $_i -lt 1200 ] && kill -0 "$SERVE" 2>/dev/null ||
			bench_fail "lorebot serve did not start: $(tail -3 "$_conf.err")"
		sleep 0.05
	done
}

# get PATH [OUT]: one request, which must answer 200
get() {
	_code=$(curl -s -o "${2:-/dev/null}" -w '%{http_code}' "http://127.0.0.1:$PORT$1") || true
	[ "$_code" = 200 ] || bench_fail "GET $1: HTTP $_code"
}

# Sourced by the dashboard benchmarks: serve_start DB starts `lorebot
# serve` on a free port of 127.0.0.1 (SERVE its pid, PORT the port) and
# waits until it answers; the caller's EXIT trap kills $SERVE.  SERVE_WRAP
# runs it under another command (valgrind).
serve_start() {
	PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	# shellcheck disable=SC2086
	${SERVE_WRAP:-} "$LOREBOT" --db "$1" serve --listen "127.0.0.1:$PORT" >/dev/null 2>&1 &
	SERVE=$!
	_i=0
	until curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz"; do
		_i=$((_i + 1))
		[ $_i -lt 400 ] || { echo "lorebot serve did not start" >&2; exit 1; }
		sleep 0.05
	done
}

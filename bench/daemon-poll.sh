#!/bin/sh
# The daemon itself on a large archive (bench/poll.sh's, every version of
# it already tested and replied to, as a daemon leaves them): it starts,
# polls a local lore (tests/lore-lab.sh) that has the 10 messages of one
# poll, plans what they changed, and serves the dashboard (--listen)
# through a bounded load loop of REQUESTS sequential GET / against
# 127.0.0.1.  Prints the daemon process's own CPU (the loop: planning,
# the queue; its children, fetch and serve and the job runners, not
# included) from start to the poll's end, its peak RSS (VmHWM) through
# both, the serve child's, and the index's median and p99 wall.  The
# archive is of 2020-2024: daemon.maxage keeps its news from being
# tested (jobs would only load the machine under the dashboard's loop).
#
#   bench/daemon-poll.sh [MESSAGES]      default 1000000
#
# LOREBOT (default build/lorebot), REQUESTS (default 300), BENCH_DIR as
# bench/poll.sh (run it first: the archive is its).  The daemon must
# store the news and every request answer 200, or the benchmark fails.
# BENCH_TINY=1: bench/poll.sh's tiny archive of 2,000, 20 requests.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
. "$SRC/bench/lib.sh"
N=${1:-1000000}
REQUESTS=${REQUESTS:-300}
if bench_tiny; then
	[ $# -gt 0 ] || N=2000
	REQUESTS=20
fi
DIR=${BENCH_DIR:-/var/tmp/lorebot-bench}
PY=/usr/bin/python3
W=$(mktemp -d "${TMPDIR:-/tmp}/lorebot-bench-dpoll.XXXXXX")
LAB=$W/lab
D=
trap '[ -n "$D" ] && kill $D 2>/dev/null; tests/lore-lab.sh stop "$LAB" 2>/dev/null || true;
	rm -rf "$W" "$DIR/daemon.db" "$DIR/daemon.db-wal" "$DIR/daemon.db-shm"' EXIT
port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
[ -f "$DIR/archive-$N.db" ] || bench_fail "no $DIR/archive-$N.db: run bench/poll.sh $N"
bench_header

DB=$DIR/daemon.db
cp "$DIR/archive-$N.db" "$DB"
# every version tested and replied to
sqlite3 "$DB" "INSERT OR IGNORE INTO jobs (kind, version, arch, state, queued, finished)
	SELECT 'reply', id, '', 'done', 0, 0 FROM versions"
sync
URL=$(tests/lore-lab.sh setup "$LAB" "$(port)" "$DIR/news-$N.mbox" 2>"$W/lab.err") ||
	bench_fail "the lore lab did not start: $(tail -3 "$W/lab.err")"
URL=$URL/linux-mm/
git init -q --bare "$W/repo.git"
printf '[lore]\n\tminpoll = 0\n\tindexlag = 0\n[list "linux-mm"]\n\tpollinterval = 1h\n[daemon]\n\tmaxage = 1d\n' \
	>"$W/lorebot.conf"
WEB=$(port)
# A daemon that left the versions tested also left their states (the
# dashboard's, version_states) derived for its --arch: the archive's were
# derived for fetch's.  So a first start, against a lore that refuses,
# derives them again, once, as after a change of the arches; the start
# measured below is the restart of such a daemon.
printf '[lore]\n\tretries = 0\n' >"$W/dead.conf"
/usr/bin/time -f '%e %U %S' -o "$W/first" "$LOREBOT" --db "$DB" --config "$W/dead.conf" \
	daemon --url "http://127.0.0.1:$(port)/linux-mm/" --repo "$W/repo.git" --arch '' --once \
	2>"$W/first.err" || bench_fail "the first start failed: $(tail -3 "$W/first.err")"
awk '{ printf "first start (every version'"'"'s state derived for --arch \"\"), lore refusing: " \
	"%.2f s wall, %.3f s CPU with its children\n", $1, $2 + $3 }' "$W/first"
t0=$(date +%s.%N)
"$LOREBOT" --db "$DB" --config "$W/lorebot.conf" daemon --url "$URL" --repo "$W/repo.git" \
	--arch '' --listen "127.0.0.1:$WEB" 2>"$W/daemon.err" &
D=$!
i=0
new=$(grep -c '^From mboxrd@z' "$DIR/news-$N.mbox")
until grep -q "linux-mm: $new new messages" "$W/daemon.err"; do
	i=$((i + 1))
	[ $i -lt 6000 ] && kill -0 "$D" 2>/dev/null ||
		bench_fail "the daemon did not store the news: $(tail -3 "$W/daemon.err")"
	sleep 0.05
done
t1=$(date +%s.%N)
cpu=$(awk '{ printf "%.3f", $1 / 1e9 }' "/proc/$D/schedstat")
awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN { printf "start to the poll stored: %.2f s wall, " \
	"daemon CPU %.3f s (its children not counted)\n", b - a, c }'
i=0
until curl -sf -o /dev/null "http://127.0.0.1:$WEB/healthz"; do
	i=$((i + 1))
	[ $i -lt 1200 ] || bench_fail "the daemon's dashboard did not answer"
	sleep 0.05
done
if ! $PY - "http://127.0.0.1:$WEB/" "$REQUESTS" <<'PY' >"$W/times" 2>"$W/get.err"
import http.client, sys, time, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port)
for _ in range(int(sys.argv[2])):
    t = time.monotonic()
    c.request("GET", u.path)
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit("HTTP %d: %s" % (r.status, body[:300]))
    print("%.6f" % (time.monotonic() - t))
PY
then
	bench_fail "GET /: $(cat "$W/get.err")"
fi
versions=$(sqlite3 "$DB" "SELECT count(*) FROM versions WHERE gone = 0")
sort -n "$W/times" | awk -v v="$versions" '{ a[NR] = $1 }
	END { p99 = int(NR * 0.99 + 0.5); if (p99 < 1) p99 = 1
	      printf "GET / through the daemon, %d versions: median %.1f ms, p99 %.1f ms (%d requests)\n",
		v, a[int((NR + 1) / 2)] * 1000, a[p99] * 1000, NR }'
serve=$(pgrep -P "$D" -f " serve " | head -1)
printf "peak RSS: daemon %s MB, serve child %s MB\n" \
	"$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$D/status")" \
	"$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$serve/status")"
grep -c "job .* started" "$W/daemon.err" | sed 's/^/jobs started for the news: /'

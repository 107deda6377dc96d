#!/bin/sh
# lorebot fetch against a local public-inbox-httpd (tests/lore-lab.sh):
#   catch-up  N generated messages into an empty database (messages/s, peak RSS)
#   idle      polls when nothing changed (requests and bytes per poll)
#   floor     the server alone: one POST x=m of everything with curl
#   git       the alternative: clone the inbox's git epoch, read every blob
#
# usage: bench/lore.sh [N] [RUNS]     (default 5000 messages, 3 runs)
# The inbox is built once per machine (minutes for 5,000 messages) and
# cached under ${LOREBOT_CACHE:-/var/cache/lorebot}/lore-lab.  Every fetch
# must exit 0 and store the N messages, curl's request of everything be
# answered 200 and its replay of lorebot's requests get lorebot's answers
# (the server's access log says so), git read the N messages, or the
# benchmark fails.  BENCH_TINY=1: 100 messages, one run of each, no
# untimed run first, lore.batch=23 only: the 115 messages in five full
# windows, and a last search that finds nothing (public-inbox answers
# 404), as at full size.
set -eu
cd "$(dirname "$0")/.."
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
N=${1:-5000}
RUNS=${2:-3}
BATCH=1000
if bench_tiny; then
	[ $# -gt 0 ] || N=100
	RUNS=1
	BATCH=23
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/lorebot-bench-lore.XXXXXX")
LAB=$W/lab
stop() {
	tests/lore-lab.sh stop "$LAB" 2>/dev/null || true
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap stop EXIT

python3 bench/gen-mbox.py "$N" "$W/gen.mbox"
N=$(grep -c '^From mboxrd@z' "$W/gen.mbox")	# the generator ends its last thread
PORT=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "# building/serving the inbox of $N messages ($(du -h "$W/gen.mbox" | cut -f1) mbox)" >&2
B=$(tests/lore-lab.sh setup "$LAB" "$PORT" "$W/gen.mbox" 2>"$W/lab.err") ||
	bench_fail "the lore lab did not start: $(tail -3 "$W/lab.err")"
URL=$B/linux-mm/
cat >"$W/conf" <<EOF
[lore]
	minpoll = 0
	indexlag = 0
	maxbatches = 100000
EOF

# served N...: the server's access log since line N answered 200 only
served() {
	_bad=$(sed -n "$(($1 + 1)),\$p" "$LAB/logs/access.log" | awk '$(NF - 1) != 200' | head -3)
	[ -z "$_bad" ] || bench_fail "the server answered: $_bad"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
field() {
	python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['lists'][0][sys.argv[2]])" "$1" "$2"
}

bench_header
echo "public-inbox $(dpkg-query -W -f '${Version}' public-inbox)"
echo

# the server alone
: >"$W/floor"
for r in $(seq "$RUNS"); do
	n0=$(wc -l <"$LAB/logs/access.log")
	t=$(bench_time curl -sf -X POST --data '' -o "$W/all.gz" "${URL}?q=rt:100000..&x=m")
	served "$n0"
	echo "$t" | cut -d' ' -f1 >>"$W/floor"
done
got=$(gzip -dc "$W/all.gz" | grep -c '^From mboxrd@z' || true)
bench_expect "curl POST x=m: messages in its mbox" "$N" "$got"
floor=$(median <"$W/floor")
echo "floor: curl POST x=m of all $N messages: ${floor} s ($(echo "$N / $floor" | bc) msgs/s), $(stat -c %s "$W/all.gz") bytes gzip"

# catch-up into an empty database
catchup() {	# LABEL BATCH FETCH-ARGS...
	label=$1
	batch=$2
	shift 2
	printf '[lore]\n\tminpoll = 0\n\tindexlag = 0\n\tmaxbatches = 100000\n\tbatch = %s\n' \
		"$batch" >"$W/conf"
	: >"$W/wall"
	: >"$W/rss"
	: >"$W/cpu"
	# one run to warm the server's caches, untimed
	rm -rf "$W/db"*
	bench_tiny || bench_run "$LOREBOT" --config "$W/conf" --db "$W/db" fetch --url "$URL" "$@"
	for r in $(seq "$RUNS"); do
		rm -rf "$W/db"*
		t=$(bench_time -o "$W/f.json" -e "$W/f.err" "$LOREBOT" --config "$W/conf" \
			--db "$W/db" fetch --url "$URL" --json "$@")
		bench_expect "catch-up $label: new messages" "$N" "$(field "$W/f.json" new)"
		bench_expect "catch-up $label: messages stored" "$N" \
			"$(sqlite3 "$W/db" "SELECT count(*) FROM messages")"
		echo "$t" | cut -d' ' -f1 >>"$W/wall"
		echo "$t" | cut -d' ' -f3 >>"$W/rss"
		echo "$t" | cut -d' ' -f2 >>"$W/cpu"
	done
	wall=$(median <"$W/wall")
	rss=$(median <"$W/rss")
	cpu=$(median <"$W/cpu")
	echo "catch-up $label: $N messages in ${wall} s = $(echo "$N / $wall" | bc) msgs/s" \
		"(lorebot and its git children: ${cpu} s CPU); peak RSS $((rss / 1024)) MB;" \
		"$(field "$W/f.json" requests) HTTP requests by lorebot; db $(du -m "$W/db" | cut -f1) MB" \
		"(median of $RUNS)"
}
if bench_tiny; then
	bench_skip "catch-up search, lore.batch=200" "the tiny mode fetches with lore.batch=$BATCH only"
else
	catchup "search, lore.batch=200" 200
fi
catchup "search, lore.batch=$BATCH" "$BATCH"

# the server alone, asked what lorebot asks: one more catch-up at
# lore.batch=$BATCH, then its requests again with curl, in sequence on one
# connection (what lorebot did before it fetched a window ahead)
rm -rf "$W/db"*
n0=$(wc -l <"$LAB/logs/access.log")
bench_run "$LOREBOT" --config "$W/conf" --db "$W/db" fetch --url "$URL"
set --
for req in $(sed -n "$((n0 + 1)),\$p" "$LAB/logs/access.log" | awk '{ print substr($4, 2) "@" $5 }'); do
	[ $# -eq 0 ] || set -- "$@" --next
	case $req in
	POST@*) set -- "$@" -X POST --data '' ;;
	esac
	set -- "$@" -s -o /dev/null "${B}${req#*@}"
done
# the statuses lorebot was answered (a search that finds nothing is a
# 404), which the same requests must get again
statuses() {
	sed -n "$(($1 + 1)),\$p" "$LAB/logs/access.log" | awk '{ print $(NF - 1) }' | paste -sd' '
}
want=$(statuses "$n0")
nreq=$(echo "$want" | wc -w)
: >"$W/same"
for r in $(seq "$RUNS"); do
	n0=$(wc -l <"$LAB/logs/access.log")
	t=$(bench_time curl "$@")
	bench_expect "curl, the same requests: the server's answers" "$want" "$(statuses "$n0")"
	echo "$t" | cut -d' ' -f1 >>"$W/same"
done
same=$(median <"$W/same")
echo "floor, same requests: curl of lorebot's $nreq requests (lore.batch=$BATCH), in sequence: ${same} s"
catchup "git, lore.batch=$BATCH" "$BATCH" --method git
# leave a database caught up by search for the idle polls
catchup "search, lore.batch=$BATCH" "$BATCH" >/dev/null

# idle polls: nothing changed
n0=$(wc -l <"$LAB/logs/access.log")
: >"$W/idle"
for r in 1 2 3 4 5; do
	t=$(bench_time -o "$W/f.json" "$LOREBOT" --config "$W/conf" --db "$W/db" \
		fetch --url "$URL" --json)
	bench_expect "idle poll: status" unchanged "$(field "$W/f.json" status)"
	echo "$(field "$W/f.json" status) $(field "$W/f.json" requests)" \
		"$(field "$W/f.json" bytes_in) $(field "$W/f.json" bytes_out) $(echo "$t" |
		cut -d' ' -f1,3)" >>"$W/idle"
done
n1=$(wc -l <"$LAB/logs/access.log")
echo "idle poll (5 polls): $(cut -d' ' -f1 "$W/idle" | sort | uniq -c | xargs), requests per poll" \
	"$(cut -d' ' -f2 "$W/idle" | sort -u | xargs), bytes in per poll $(cut -d' ' -f3 "$W/idle" |
	sort -n | sed -n '1p;$p' | paste -sd-), bytes out $(cut -d' ' -f4 "$W/idle" | sort -u | xargs)," \
	"peak RSS $(($(cut -d' ' -f6 "$W/idle" | sort -n | tail -1) / 1024)) MB; the server saw:" \
	"$(sed -n "$((n0 + 1)),\$p" "$LAB/logs/access.log" | awk "{ print \$4, \$5, \$7 }" | sort | uniq -c | tr -s " \\n" " ")"

# git alone: clone the epoch, read every blob (no parsing, no storing)
t=$(bench_time git clone -q --mirror "${B}/linux-mm/0" "$W/epoch.git")
clone=$(echo "$t" | cut -d' ' -f1)
t=$(bench_time -o "$W/blobs" sh -c "set -e; git -C '$W/epoch.git' log --format= --raw master |
	awk '{ print \$4 }' | git -C '$W/epoch.git' cat-file --batch")
read=$(echo "$t" | cut -d' ' -f1)
bench_expect "git alone: blobs read" "$N" "$(grep -c '^[0-9a-f]\{40\} blob ' "$W/blobs" || true)"
echo "git alone: clone ${clone} s ($(du -sk "$W/epoch.git" | cut -f1) KB), read $N blobs ${read} s" \
	"= $(echo "$N / ($clone + $read)" | bc) msgs/s before any parsing or storing"
n0=$(wc -l <"$LAB/logs/access.log")
bench_run env GIT_TRACE_CURL_NO_DATA=1 GIT_TRACE_CURL="$W/trace" git -C "$W/epoch.git" fetch -q
echo "git alone, idle fetch: $(($(wc -l <"$LAB/logs/access.log") - n0)) request(s)," \
	"$(grep -E '<= Recv (header|data), [0-9]+ bytes' "$W/trace" |
	sed -E 's/.*, ([0-9]+) bytes.*/\1/' | paste -sd+ | bc) bytes in"

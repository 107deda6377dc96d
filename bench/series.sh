#!/bin/sh
# Benchmark 'lorebot series --mbox' (issue 2):
#  1. a synthetic mbox of 50,000 messages (bench/gen-mbox.py): throughput
#     (MB/s, median of 5 runs), peak RSS, and instructions (callgrind, on
#     5,000 messages: repeatable whatever else the machine does); then
#     150,000 messages in memory and in a scratch file, and 1,000 large
#     patches; BIG=1 adds 500,000 and 1,000,000 messages;
#  2. the three fixture threads against b4 0.12 reading the same threads
#     from a local public-inbox (b4 am -C -o - <msgid>), median of 5.
# usage: [BIG=1] bench/series.sh [OUTDIR]   (default bench/out)
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-bench/out}
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
RUNS=${RUNS:-5}
mkdir -p "$OUT"

median() {
	sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

# wall seconds, user seconds, peak KB of one command (stdout discarded)
measure() {
	# b4 am exits 1 after writing the mbox: time then adds a line first
	/usr/bin/time -f "%e %U %M" -o "$OUT/.time" "$@" >/dev/null 2>&1 || true
	tail -n 1 "$OUT/.time"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"

[ -f "$OUT/m50k.mbox" ] || python3 bench/gen-mbox.py 50000 "$OUT/m50k.mbox"
[ -f "$OUT/m5k.mbox" ] || python3 bench/gen-mbox.py 5000 "$OUT/m5k.mbox"
size=$(stat -c %s "$OUT/m50k.mbox")
: >"$OUT/.runs"
for i in $(seq "$RUNS"); do
	measure "$LOREBOT" series --mbox "$OUT/m50k.mbox" --json >>"$OUT/.runs"
done
wall=$(cut -d' ' -f1 "$OUT/.runs" | median)
user=$(cut -d' ' -f2 "$OUT/.runs" | median)
rss=$(cut -d' ' -f3 "$OUT/.runs" | sort -n | tail -1)
echo "50,000 messages, $((size / 1048576)) MB: median wall ${wall}s (user ${user}s)," \
	"$(awk -v s="$size" -v w="$wall" 'BEGIN { printf "%.0f", s / 1048576 / w }') MB/s wall," \
	"$(awk -v s="$size" -v w="$user" 'BEGIN { printf "%.0f", s / 1048576 / w }') MB/s of CPU," \
	"peak RSS $((rss / 1024)) MB"
# How memory grows: with messages (the little assembly keeps of each), not
# with bytes (bodies are never held).  Three times the messages, then
# about as many bytes as the 50,000 in 1,000 large patches.
[ -f "$OUT/m150k.mbox" ] || python3 bench/gen-mbox.py 150000 "$OUT/m150k.mbox"
[ -f "$OUT/big1k.mbox" ] || python3 bench/gen-big.py 1000 "$OUT/big1k.mbox"
# Past series.memory (28m, about 50,000 of these messages) the assembly
# moves to a scratch file of which 28m at most is mapped in: memory stays
# flat.  BIG=1 adds 500,000 and 1,000,000 messages (1.1 and 2.2 GB; a few
# minutes to generate).
one() {
	f=$1
	shift
	size=$(stat -c %s "$OUT/$f.mbox")
	msgs=$(grep -c '^From mboxrd@z' "$OUT/$f.mbox")
	# shellcheck disable=SC2046
	set -- $(measure "$LOREBOT" series --mbox "$OUT/$f.mbox" --json "$@")
	echo "$msgs messages, $((size / 1048576)) MB${where:+, $where}: wall ${1}s," \
		"$(awk -v s="$size" -v w="$1" 'BEGIN { printf "%.0f", s / 1048576 / w }') MB/s," \
		"peak RSS $(($3 / 1024)) MB"
}
where= one big1k
where="in memory" one m150k --memory=1g
where="in a scratch file past 28m" one m150k
where="in a scratch file past 8m (--memory=8m)" one m150k --memory=8m
# the same bytes out either way
"$LOREBOT" series --mbox "$OUT/m150k.mbox" --json --memory=1g >"$OUT/.mem.json"
"$LOREBOT" series --mbox "$OUT/m150k.mbox" --json 2>/dev/null >"$OUT/.scr.json"
if cmp -s "$OUT/.mem.json" "$OUT/.scr.json"; then
	echo "150,000 messages: the same JSON in memory and in the scratch file"
else
	echo "150,000 messages: the JSON DIFFERS between memory and the scratch file"
fi
rm -f "$OUT/.mem.json" "$OUT/.scr.json"
if [ "${BIG:-}" = 1 ]; then
	[ -f "$OUT/m500k.mbox" ] || python3 bench/gen-mbox.py 500000 "$OUT/m500k.mbox"
	[ -f "$OUT/m1m.mbox" ] || python3 bench/gen-mbox.py 1000000 "$OUT/m1m.mbox"
	where="in a scratch file past 28m" one m500k
	where="in a scratch file past 28m" one m1m
fi

if command -v valgrind >/dev/null; then
	valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
		"$LOREBOT" series --mbox "$OUT/m5k.mbox" --json >/dev/null 2>"$OUT/.cg"
	ir=$(grep -o 'Collected : [0-9]*' "$OUT/.cg" | grep -o '[0-9]*$')
	s5=$(stat -c %s "$OUT/m5k.mbox")
	echo "5,000 messages: $ir instructions, $((ir / s5)) per byte, $((ir / 5000)) per message"
fi

# b4 against a local public-inbox serving the fixtures
if [ ! -x tests/lore-lab.sh ] || ! command -v b4 >/dev/null; then
	echo "b4 comparison skipped: tests/lore-lab.sh or b4 missing"
	exit 0
fi
LAB=$(mktemp -d /tmp/lorebot-bench-lab.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url=$(tests/lore-lab.sh setup "$LAB" "$port")
trap 'tests/lore-lab.sh stop "$LAB" >/dev/null 2>&1; rm -rf "$LAB"' EXIT
export HOME=$LAB/b4home XDG_CACHE_HOME=$LAB/b4home/.cache GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL=$LAB/b4home/gitconfig
mkdir -p "$HOME"
git config --global b4.midmask "$url/linux-mm/%s"
git config --global b4.linkmask "$url/linux-mm/%s"
git config --global b4.searchmask "$url/linux-mm/?x=m&t=1&q=%s"
git config --global b4.attestation-policy off
printf '\n| thread | b4 am (s) | lorebot series (s) | ratio |\n| --- | --- | --- | --- |\n'
for t in 000_73a05b4700ab1a7a:20260824073801.982490-1-hebaoquan@kylinos.cn \
	 003_6100bb5053417aef:20260207081613.588598-1-vernon2gm@gmail.com \
	 004_476fa21b8430df59:20250115033807.46664-1-21cnbao@gmail.com; do
	f=tests/fixtures/lore/${t%%:*}.mbox
	mid=${t#*:}
	: >"$OUT/.b4"
	: >"$OUT/.lb"
	for i in $(seq "$RUNS"); do
		measure b4 am -C -o - "$mid" | cut -d' ' -f1 >>"$OUT/.b4"
		measure "$LOREBOT" series --mbox "$f" --json | cut -d' ' -f1 >>"$OUT/.lb"
	done
	b=$(median <"$OUT/.b4")
	l=$(median <"$OUT/.lb")
	echo "| ${t%%_*} | $b | $l | $(awk -v b="$b" -v l="$l" 'BEGIN { printf "%.0fx", (l > 0 ? b / l : 0) }') |"
done

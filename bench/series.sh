#!/bin/sh
# Benchmark 'lorebot series --mbox' (issue 2):
#  1. a synthetic mbox of 50,000 messages (bench/gen-mbox.py): throughput
#     (MB/s, median of 5 runs), CPU, peak RSS, with the default
#     series.memory (28m: past it, the assembly is in a scratch file) and
#     in memory (--memory=1g); instructions (callgrind, on 5,000
#     messages: repeatable whatever else the machine does); then 150,000
#     messages in memory and in a scratch file, and 1,000 large patches;
#     BIG=1 adds 500,000 and 1,000,000 messages;
#  2. the three fixture threads against b4 0.12 reading the same threads
#     from a local public-inbox (b4 am -C -o - <msgid>, with the lab's
#     git identity), median of 5:
#     wall and CPU (user + sys) of each, side by side.
# Every run must exit 0 (b4: 0 or 1, the mbox written) and print the
# messages it read (b4: the thread's patches), or the benchmark fails.
# usage: [BIG=1] bench/series.sh [OUTDIR]   (default bench/out)
# BENCH_TINY=1: 2,000 messages, 50 large patches, one run each, b4 on one
# thread.
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-bench/out}
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
RUNS=${RUNS:-5}
mkdir -p "$OUT"
N=50000 NI=5000 N3=150000 NBIG=1000
if bench_tiny; then
	RUNS=1 N=2000 NI=500 N3=3000 NBIG=50
fi

median() {
	sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
mb() {
	awk -v s="$1" -v w="$2" 'BEGIN { printf "%.0f", (w > 0 ? s / 1048576 / w : 0) }'
}

# series FILE ARGS...: one timed run, "WALL CPU RSS"; the JSON must
# account for every message of the file
series() {
	_f=$1
	shift
	bench_time -o "$OUT/.json" "$LOREBOT" series --mbox "$_f" --json "$@"
	bench_expect "lorebot series --mbox $_f $*: messages read" \
		"$(grep -c '^From mboxrd@z' "$_f")" \
		"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["messages"])' \
			"$OUT/.json")"
}

bench_header
[ -f "$OUT/m$N.mbox" ] || python3 bench/gen-mbox.py "$N" "$OUT/m$N.mbox"
[ -f "$OUT/m$NI.mbox" ] || python3 bench/gen-mbox.py "$NI" "$OUT/m$NI.mbox"
size=$(stat -c %s "$OUT/m$N.mbox")
for mem in default 1g; do
	: >"$OUT/.runs"
	for i in $(seq "$RUNS"); do
		if [ $mem = default ]; then
			r=$(series "$OUT/m$N.mbox")
		else
			r=$(series "$OUT/m$N.mbox" --memory=1g)
		fi
		echo "$r" >>"$OUT/.runs"
	done
	wall=$(cut -d' ' -f1 "$OUT/.runs" | median)
	cpu=$(cut -d' ' -f2 "$OUT/.runs" | median)
	rss=$(cut -d' ' -f3 "$OUT/.runs" | sort -n | tail -1)
	case $mem in
	default) where="series.memory 28m (default): a scratch file past it" ;;
	*) where="in memory (--memory=1g)" ;;
	esac
	echo "$N messages, $((size / 1048576)) MB, $where: median wall ${wall} s (CPU ${cpu} s)," \
		"$(mb "$size" "$wall") MB/s wall, $(mb "$size" "$cpu") MB/s of CPU," \
		"peak RSS $((rss / 1024)) MB"
done
# How memory grows: with messages (the little assembly keeps of each), not
# with bytes (bodies are never held).  Three times the messages, then
# about as many bytes as the 50,000 in 1,000 large patches.
[ -f "$OUT/m$N3.mbox" ] || python3 bench/gen-mbox.py "$N3" "$OUT/m$N3.mbox"
[ -f "$OUT/big$NBIG.mbox" ] || python3 bench/gen-big.py "$NBIG" "$OUT/big$NBIG.mbox"
# Past series.memory (28m, about 50,000 of these messages) the assembly
# moves to a scratch file of which 28m at most is mapped in: memory stays
# flat.  BIG=1 adds 500,000 and 1,000,000 messages (1.1 and 2.2 GB; a few
# minutes to generate).
one() {
	f=$1
	shift
	size=$(stat -c %s "$OUT/$f.mbox")
	msgs=$(grep -c '^From mboxrd@z' "$OUT/$f.mbox")
	r=$(series "$OUT/$f.mbox" "$@")
	# shellcheck disable=SC2086
	set -- $r
	echo "$msgs messages, $((size / 1048576)) MB${where:+, $where}: wall ${1} s, CPU ${2} s," \
		"$(mb "$size" "$1") MB/s, peak RSS $(($3 / 1024)) MB"
}
where= one "big$NBIG"
if bench_tiny; then
	bench_skip "the $N3 messages in memory and past 28m" "the tiny mode runs them past 8m"
else
	where="in memory" one "m$N3" --memory=1g
	where="in a scratch file past 28m" one "m$N3"
fi
where="in a scratch file past 8m (--memory=8m)" one "m$N3" --memory=8m
# the same bytes out either way
bench_run -o "$OUT/.mem.json" "$LOREBOT" series --mbox "$OUT/m$N3.mbox" --json --memory=1g
bench_run -o "$OUT/.scr.json" "$LOREBOT" series --mbox "$OUT/m$N3.mbox" --json --memory=8m
cmp -s "$OUT/.mem.json" "$OUT/.scr.json" ||
	bench_fail "$N3 messages: the JSON DIFFERS between memory and the scratch file"
echo "$N3 messages: the same JSON in memory and in the scratch file"
rm -f "$OUT/.mem.json" "$OUT/.scr.json" "$OUT/.json"
if [ "${BIG:-}" = 1 ]; then
	[ -f "$OUT/m500000.mbox" ] || python3 bench/gen-mbox.py 500000 "$OUT/m500000.mbox"
	[ -f "$OUT/m1000000.mbox" ] || python3 bench/gen-mbox.py 1000000 "$OUT/m1000000.mbox"
	where="in a scratch file past 28m" one m500000
	where="in a scratch file past 28m" one m1000000
fi

ir=$(bench_ir -o "$OUT/.json" "$LOREBOT" series --mbox "$OUT/m$NI.mbox" --json)
s5=$(stat -c %s "$OUT/m$NI.mbox")
echo "$NI messages: $ir instructions, $((ir / s5)) per byte, $((ir / NI)) per message"

# b4 against a local public-inbox serving the fixtures
if ! command -v b4 >/dev/null; then
	bench_skip "b4 comparison" "b4 is not installed"
	exit 0
fi
LAB=$(mktemp -d /tmp/lorebot-bench-lab.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
trap 'tests/lore-lab.sh stop "$LAB" >/dev/null 2>&1; rm -rf "$LAB"' EXIT
url=$(tests/lore-lab.sh setup "$LAB" "$port" 2>"$LAB.err") ||
	bench_fail "the lore lab did not start: $(tail -3 "$LAB.err")"
rm -f "$LAB.err"
# the lab's environment (its git identity: without one b4 0.12 exits 1
# before it writes the mbox, which this benchmark timed until issue 46)
. "$LAB/env.sh"
mkdir -p "$LAB/b4work"
threads="000_73a05b4700ab1a7a:20260824073801.982490-1-hebaoquan@kylinos.cn:9
	003_6100bb5053417aef:20260207081613.588598-1-vernon2gm@gmail.com:5
	004_476fa21b8430df59:20250115033807.46664-1-21cnbao@gmail.com:4"
if bench_tiny; then
	threads=${threads%%
*}
	bench_skip "b4 on threads 003 and 004" "the tiny mode compares thread 000"
fi
printf '\n| thread | b4 am: wall, CPU (s) | lorebot series: wall, CPU (s) | ratio wall, CPU |\n'
printf '| --- | --- | --- | --- |\n'
for t in $threads; do
	f=tests/fixtures/lore/${t%%:*}.mbox
	mid=${t#*:}
	want=${mid#*:}
	mid=${mid%:*}
	: >"$OUT/.b4"
	: >"$OUT/.lb"
	for i in $(seq "$RUNS"); do
		(cd "$LAB/b4work" && bench_time -o "$LAB/b4.mbox" b4 am -C -o - "$mid") >>"$OUT/.b4"
		got=$(grep -c '^Subject: \[PATCH' "$LAB/b4.mbox" || true)
		[ "$got" -ge "$want" ] ||
			bench_fail "b4 am $mid: $got patches in its mbox, $want expected"
		series "$f" >>"$OUT/.lb"
	done
	bw=$(cut -d' ' -f1 "$OUT/.b4" | median)
	bc=$(cut -d' ' -f2 "$OUT/.b4" | median)
	lw=$(cut -d' ' -f1 "$OUT/.lb" | median)
	lc=$(cut -d' ' -f2 "$OUT/.lb" | median)
	echo "| ${t%%_*} | $bw, $bc | $lw, $lc |" \
		"$(awk -v a="$bw" -v b="$lw" -v c="$bc" -v d="$lc" 'BEGIN {
			printf "%.0fx, %s", (b > 0 ? a / b : 0), (d > 0 ? sprintf("%.0fx", c / d) : "under the 10 ms step") }') |"
done

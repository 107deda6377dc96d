#!/bin/sh
# Benchmark assembly of reply chains whose parents come later (issue 20):
# 'lorebot series --mbox' on bench/gen-replies.py's mboxes, 40,000 and
# 400,000 replies in one chain written deepest first, the same 40,000 in
# order, and 400,000 in chains of 100, then in a smaller scratch window;
# 40,000 to 400,000 all in memory (--memory 1g), where the CPU time shows
# whether assembly is linear however loaded the machine is;
# next to b4 0.12 reading the same chain (b4 am -m, a few thousand: it
# walks the chain again for each reply: quadratic and more).  Every run
# must exit 0 and account for every message (b4: write the series), or
# the benchmark fails.
# usage: bench/replies.sh [OUTDIR]   (default bench/out)
# BENCH_TINY=1: 1,000 and 2,000 replies, b4 on 100.
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-bench/out}
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
S=40000 L=400000 MEM="40000 100000 200000 400000" B4="250 500 1000"
if bench_tiny; then
	S=1000 L=2000 MEM=1000 B4=100
fi

# series FILE ARGS...: "WALL RSS USER SYS" of one run, every message read
series() {
	_f=$1
	shift
	_r=$(bench_time -o "$OUT/.json" "$LOREBOT" series --mbox "$_f" --json "$@")
	# shellcheck disable=SC2086
	set -- $_r
	bench_expect "lorebot series --mbox $_f: messages read" \
		"$(grep -c '^From mboxrd@z' "$_f")" \
		"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["messages"])' \
			"$OUT/.json")"
	echo "$1 $3 $2"
}

bench_header
for spec in $S:$S $L:$L $L:100; do
	n=${spec%%:*}
	len=${spec#*:}
	f=$OUT/replies-$n-$len.mbox
	[ -f "$f" ] || python3 bench/gen-replies.py "$n" "$f" "$len"
	r=$(series "$f")
	set -- $r
	echo "$n replies, chains of $len, deepest first: $1 s (CPU $3 s), peak RSS $(($2 / 1024)) MB"
done
# the same $S in order: reversed back
python3 - "$OUT/replies-$S-$S.mbox" "$OUT/replies-$S-inorder.mbox" <<'PY'
import sys
msgs = open(sys.argv[1]).read().split("From mboxrd@z Thu Jan  1 00:00:00 1970\n")[1:]
head, replies = msgs[:3], msgs[3:]
open(sys.argv[2], "w").write("".join("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m
                                      for m in head + replies[::-1]))
PY
r=$(series "$OUT/replies-$S-inorder.mbox")
set -- $r
echo "$S replies, one chain, in order: $1 s (CPU $3 s), peak RSS $(($2 / 1024)) MB"
r=$(series "$OUT/replies-$L-$L.mbox" --memory 8m)
set -- $r
echo "$L replies, one chain, deepest first, scratch file past 8m: $1 s (CPU $3 s), peak RSS $(($2 / 1024)) MB"
for n in $MEM; do
	f=$OUT/replies-$n-$n.mbox
	[ -f "$f" ] || python3 bench/gen-replies.py "$n" "$f"
	r=$(series "$f" --memory 1g)
	set -- $r
	echo "$n replies, one chain, deepest first, in memory: $1 s, CPU $3 s, peak RSS $(($2 / 1024)) MB"
done
if ! command -v b4 >/dev/null; then
	bench_skip "b4 am -m" "b4 is not installed"
	exit 0
fi
# b4 0.12 exits 1 before it writes anything without a git identity
export HOME=$OUT/b4home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$OUT/b4home/gitconfig
mkdir -p "$OUT/b4home" "$OUT/b4"
git config --global user.name "lorebot bench"
git config --global user.email bench@lorebot.invalid
for n in $B4; do
	f=$OUT/replies-$n.mbox
	[ -f "$f" ] || python3 bench/gen-replies.py "$n" "$f"
	r=$(cd "$OUT/b4" && bench_time -o b4.mbox b4 am -m "$f" -o - s-1@example.org)
	[ "$(grep -c '^Subject: \[PATCH' "$OUT/b4/b4.mbox" || true)" -ge 2 ] ||
		bench_fail "b4 am -m $f wrote no series"
	echo "b4 am -m, $n replies, one chain, deepest first: $r (wall s, CPU s, peak KB)"
	r=$(series "$f")
	set -- $r
	echo "lorebot series --mbox, the same: $1 s (CPU $3 s)"
done

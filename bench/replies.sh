#!/bin/sh
# Benchmark assembly of reply chains whose parents come later (issue 20):
# 'lorebot series --mbox' on bench/gen-replies.py's mboxes, 40,000 and
# 400,000 replies in one chain written deepest first, the same 40,000 in
# order, and 400,000 in chains of 100, then in a smaller scratch window;
# 40,000 to 400,000 all in memory (--memory 1g), where the CPU time shows
# whether assembly is linear however loaded the machine is;
# next to b4 0.12 reading the same chain (b4 am -m, a few thousand: it
# walks the chain again for each reply: quadratic and more).
# usage: bench/replies.sh [OUTDIR]   (default bench/out)
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-bench/out}
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
mkdir -p "$OUT"

measure() {	# wall seconds, peak KB, CPU seconds (user, system) of one command
	/usr/bin/time -f "%e %M %U %S" -o "$OUT/.time" "$@" >/dev/null 2>&1 || true
	tail -n 1 "$OUT/.time"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for spec in 40000:40000 400000:400000 400000:100; do
	n=${spec%%:*}
	len=${spec#*:}
	f=$OUT/replies-$n-$len.mbox
	[ -f "$f" ] || python3 bench/gen-replies.py "$n" "$f" "$len"
	# shellcheck disable=SC2046
	set -- $(measure "$LOREBOT" series --mbox "$f" --json)
	echo "$n replies, chains of $len, deepest first: $1 s, peak RSS $(($2 / 1024)) MB"
done
# the same 40,000 in order: reversed back
python3 - "$OUT/replies-40000-40000.mbox" "$OUT/replies-40000-inorder.mbox" <<'PY'
import sys
msgs = open(sys.argv[1]).read().split("From mboxrd@z Thu Jan  1 00:00:00 1970\n")[1:]
head, replies = msgs[:3], msgs[3:]
open(sys.argv[2], "w").write("".join("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m
                                      for m in head + replies[::-1]))
PY
set -- $(measure "$LOREBOT" series --mbox "$OUT/replies-40000-inorder.mbox" --json)
echo "40000 replies, one chain, in order: $1 s, peak RSS $(($2 / 1024)) MB"
set -- $(measure "$LOREBOT" series --memory 8m --mbox "$OUT/replies-400000-400000.mbox" --json)
echo "400000 replies, one chain, deepest first, scratch file past 8m: $1 s, peak RSS $(($2 / 1024)) MB"
for n in 40000 100000 200000 400000; do
	f=$OUT/replies-$n-$n.mbox
	[ -f "$f" ] || python3 bench/gen-replies.py "$n" "$f"
	# shellcheck disable=SC2046
	set -- $(measure "$LOREBOT" series --memory 1g --mbox "$f" --json)
	echo "$n replies, one chain, deepest first, in memory: $1 s, CPU $3 s user + $4 s system, peak RSS $(($2 / 1024)) MB"
done
if command -v b4 >/dev/null; then
	for n in 250 500 1000; do
		f=$OUT/replies-$n.mbox
		[ -f "$f" ] || python3 bench/gen-replies.py "$n" "$f"
		mkdir -p "$OUT/b4"
		set -- $(cd "$OUT/b4" && measure b4 am -m "$f" -o - s-1@example.org)
		echo "b4 am -m, $n replies, one chain, deepest first: $1 s"
		set -- $(measure "$LOREBOT" series --mbox "$f" --json)
		echo "lorebot series --mbox, the same: $1 s"
	done
fi

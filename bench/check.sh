#!/bin/sh
# Benchmarks of lorebot check (see bench/README.md, "lorebot check"):
#  1. lorebot's own checkers (everything but checkpatch) on the 9 patches
#     of thread 000: wall time (median of RUNS) and instructions (callgrind)
#  2. lorebot check with checkpatch only, next to checkpatch.pl run on the
#     same patches one after another with b4's flags: wall and CPU time
#
# usage: bench/check.sh [RUNS]      (LOREBOT=build/lorebot by default)
# Every run must exit 0 or 1 (findings) and print what it found, or the
# benchmark fails.  BENCH_TINY=1: one run each.
set -eu
cd "$(dirname "$0")/.."
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
RUNS=${1:-9}
! bench_tiny || RUNS=1
MBOX=tests/fixtures/lore/000_73a05b4700ab1a7a.mbox
MM=$(ci/mm-tree.sh)
export LOREBOT_CACHE
LOREBOT_CACHE=$(dirname "$MM")
TMP=$(mktemp -d /tmp/lorebot-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# measure CHECK CMD...: median of RUNS timed runs of a command that exits
# 0 or 1, in ms (wall, user + sys); after each, CHECK (a function) reads
# its output, $TMP/out
measure() {
	_chk=$1
	shift
	: >"$TMP/times"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		r=$(bench_time -s 0,1 -o "$TMP/out" "$@")
		"$_chk"
		echo "$r" | awk '{ printf "%d %d\n", $1 * 1000, $2 * 1000 }' >>"$TMP/times"
		i=$((i + 1))
	done
	wall=$(cut -d' ' -f1 "$TMP/times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	cpu=$(cut -d' ' -f2 "$TMP/times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
}

# what each run printed: lorebot's summary line, the findings of checkpatch
summary() {
	grep -q '^[0-9]* errors, [0-9]* warnings, [0-9]* notes$' "$TMP/out" ||
		bench_fail "lorebot check printed no summary: $(tail -3 "$TMP/out")"
}
lorebot_checkpatch() {
	n=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(f["rule"].startswith("checkpatch:") for f in d["findings"]))' "$TMP/out")
	[ "$n" -gt 0 ] || bench_fail "lorebot check (checkpatch only): no checkpatch finding"
}
checkpatch_pl() {
	n=$(grep -c 'WARNING\|ERROR\|CHECK' "$TMP/out" || true)
	[ "$n" -gt 0 ] || bench_fail "checkpatch.pl: no finding printed: $(tail -3 "$TMP/out")"
}

bench_header

# 1. own checkers
measure summary "$LOREBOT" check --mbox "$MBOX" --checkers=-checkpatch
own_wall=$wall
own_cpu=$cpu
ir=$(bench_ir -s 0,1 -k "$TMP/cg.out" "$LOREBOT" check --mbox "$MBOX" --checkers=-checkpatch)
rules_ir=$(callgrind_annotate "$TMP/cg.out" 2>/dev/null |
	awk '/checkers\/(lazyfree|progress|oneline|cscan|cparse)\.c:/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
echo "own checkers, 9 patches: median wall ${own_wall} ms, cpu ${own_cpu} ms," \
	"instructions ${ir} (scanner and mm rules: ${rules_ir})"

# 2. checkpatch: lorebot (parallel groups) vs checkpatch.pl one patch at a time
mkdir -p "$TMP/split" "$TMP/scripts"
for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
	git --git-dir="$MM" show "mm-new:scripts/$f" >"$TMP/scripts/$f"
done
git mailsplit --mboxrd -o"$TMP/split" "$MBOX" >/dev/null
: >"$TMP/patches"
for f in "$TMP"/split/*; do
	if grep -q '^Subject: \[PATCH [1-9]/9\]' "$f"; then
		echo "$f" >>"$TMP/patches"
	fi
done
cat >"$TMP/seq.sh" <<SEQ
#!/bin/sh
# each patch's status: 0, or 1 for what it found
for f in \$(cat "$TMP/patches"); do
	GIT_DIR=/nonexistent perl "$TMP/scripts/checkpatch.pl" -q --terse --no-summary \
		--mailback --showfile --show-types --no-tree "\$f" || [ \$? = 1 ] || exit 2
done
SEQ
[ "$(wc -l <"$TMP/patches")" = 9 ] || bench_fail "not 9 patches split from $MBOX"
measure checkpatch_pl sh "$TMP/seq.sh"
seq_wall=$wall
seq_cpu=$cpu
bench_run -s 0,1 "$LOREBOT" check --mbox "$MBOX" --checkers=-all,checkpatch	# warm the cache
measure lorebot_checkpatch "$LOREBOT" check --mbox "$MBOX" --checkers=-all,checkpatch --json
lb_wall=$wall
lb_cpu=$cpu
echo "checkpatch.pl one after another: median wall ${seq_wall} ms, cpu ${seq_cpu} ms"
echo "lorebot check (checkpatch only): median wall ${lb_wall} ms, cpu ${lb_cpu} ms"
awk -v a="$lb_wall" -v b="$seq_wall" -v c="$lb_cpu" -v d="$seq_cpu" \
	'BEGIN { printf "ratio: wall %.2fx, cpu %.2fx\n", a / b, c / d }'

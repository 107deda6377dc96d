#!/bin/sh
# Benchmarks of lorebot check (see bench/README.md, "lorebot check"):
#  1. lorebot's own checkers (everything but checkpatch) on the 9 patches
#     of thread 000: wall time (median of RUNS) and instructions (callgrind)
#  2. lorebot check with checkpatch only, next to checkpatch.pl run on the
#     same patches one after another with b4's flags: wall and CPU time
#
# usage: bench/check.sh [RUNS]      (LOREBOT=build/lorebot by default)
set -eu
cd "$(dirname "$0")/.."
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
RUNS=${1:-9}
MBOX=tests/fixtures/lore/000_73a05b4700ab1a7a.mbox
MM=$(ci/mm-tree.sh)
export LOREBOT_CACHE
LOREBOT_CACHE=$(dirname "$MM")
TMP=$(mktemp -d /tmp/lorebot-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# median of N timed runs of a command, in ms (wall) and ms (user+sys)
measure() {
	: >"$TMP/times"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		/usr/bin/time -f '%e %U %S' -o "$TMP/t" "$@" >/dev/null 2>&1 || true
		awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$TMP/t" >>"$TMP/times"
		i=$((i + 1))
	done
	wall=$(cut -d' ' -f1 "$TMP/times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	cpu=$(cut -d' ' -f2 "$TMP/times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
}

echo "machine: $(nproc) cores, $(uname -m), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "lorebot: $("$LOREBOT" version)"

# 1. own checkers
measure "$LOREBOT" check --mbox "$MBOX" --checkers=-checkpatch
own_wall=$wall
own_cpu=$cpu
if command -v valgrind >/dev/null; then
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" \
		"$LOREBOT" check --mbox "$MBOX" --checkers=-checkpatch >/dev/null 2>"$TMP/cg.err" || true
	ir=$(sed -n 's/^summary: //p' "$TMP/cg.out")
	rules_ir=$(callgrind_annotate "$TMP/cg.out" 2>/dev/null |
		awk '/checkers\/(lazyfree|progress|oneline|cscan|cparse)\.c:/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
else
	ir=n/a
	rules_ir=n/a
fi
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
for f in \$(cat "$TMP/patches"); do
	GIT_DIR=/nonexistent perl "$TMP/scripts/checkpatch.pl" -q --terse --no-summary \
		--mailback --showfile --show-types --no-tree "\$f"
done
SEQ
measure sh "$TMP/seq.sh"
seq_wall=$wall
seq_cpu=$cpu
"$LOREBOT" check --mbox "$MBOX" --checkers=-all,checkpatch >/dev/null 2>&1 || true	# warm the cache
measure "$LOREBOT" check --mbox "$MBOX" --checkers=-all,checkpatch
lb_wall=$wall
lb_cpu=$cpu
echo "checkpatch.pl one after another: median wall ${seq_wall} ms, cpu ${seq_cpu} ms"
echo "lorebot check (checkpatch only): median wall ${lb_wall} ms, cpu ${lb_cpu} ms"
awk -v a="$lb_wall" -v b="$seq_wall" -v c="$lb_cpu" -v d="$seq_cpu" \
	'BEGIN { printf "ratio: wall %.2fx, cpu %.2fx (target: 0.6x or less)\n", a / b, c / d }'

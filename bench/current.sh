#!/bin/sh
# The current figures of bench/README.md, all measured again at one
# commit on this machine, each beside the tool a user would otherwise run:
# runs the benchmarks below (their output in OUT/*.log), then prints the
# table in markdown, each row with the command that gave it, its date and
# the load average before and after it.  Instructions (callgrind) are
# what the machine's load does not change; CPU is user + system; wall
# only says how loaded the machine was.
#
#   bench/current.sh [OUT]         default bench/out/current
#
# RUNS (default 3) runs of each timed command; ONLY="lore poll": measure
# those again, read the others' output as it is; SKIP_RUN=1: measure
# nothing, print the table of OUT; BENCH_DIR as bench/poll.sh
# (its archive of 1,000,000 messages is made once: about 40 minutes of a
# loaded machine, 5.5 GB).  Hours on a loaded 2-core machine; under nice.
# What is not here (kernel builds and boots, Slurm, the first run) stays
# in the notebook below the table, dated.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
export LOREBOT
. bench/lib.sh
OUT=${1:-bench/out/current}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RUNS=${RUNS:-3}
P1=10000 P2=1000000 DV=100000 LN=5000 LB=1000
# the tiny mode: the harness of this table, on small inputs
! bench_tiny || { P1=1000 P2=2000 DV=2000 LN=100 LB=23; }
export RUNS
commit=$(git describe --always --dirty)
load() {
	cut -d' ' -f1 /proc/loadavg
}

# bench NAME CMD...: run one benchmark under nice, its output in NAME.log,
# its date and the load before and after in NAME.when
bench() {
	_n=$1
	shift
	_l0=$(load)
	_d=$(date -u '+%Y-%m-%d %H:%M')
	echo "== $_n: $*" >&2
	nice -n 10 "$@" >"$OUT/$_n.log" 2>"$OUT/$_n.err" ||
		bench_fail "$_n: $(tail -3 "$OUT/$_n.err")"
	echo "$_d, load $_l0-$(load)" >"$OUT/$_n.when"
}

# ONLY="NAME...": measure only those again (the others' logs are kept)
only() {
	[ -z "${ONLY:-}" ] && return 0
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}
[ -n "${SKIP_RUN:-}" ] || {
	! only series || bench series bench/series.sh "$OUT/series"
	! only check || bench check bench/check.sh "$RUNS"
	! only devcheck || bench devcheck bench/devcheck.sh "$RUNS"
	! only apply || EXPORT=0 BENCH_OUT=$OUT/apply bench apply bench/apply.sh
	! only poll || bench poll bench/poll.sh "$P1" "$P2"
	! only dash-load || INSTR=5 REQUESTS=100 bench dash-load bench/dash-load.sh "$DV"
	! only lore || bench lore bench/lore.sh "$LN" "$RUNS"
}

# pick NAME PATTERN: the first line of NAME.log that matches
pick() {
	grep -m1 -- "$2" "$OUT/$1.log" || bench_fail "$1: no line /$2/ in its output"
}
# num LINE REGEX: the number after REGEX in LINE
num() {
	echo "$1" | sed -n "s/.*$2 *\\([0-9][0-9.]*\\).*/\\1/p"
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'
}
when() {
	cat "$OUT/$1.when"
}
row() {
	printf '| %s | %s | %s | %s | `%s` | %s |\n' "$@"
}

echo "Measured at $commit ($("$LOREBOT" --version)) on $(nproc) cores" \
	"($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)) by" \
	"\`bench/current.sh\`; medians of $RUNS runs."
echo
echo "| what | lorebot | the peer | lorebot / peer | command | date (UTC), load |"
echo "| --- | --- | --- | --- | --- | --- |"

# series: the three real threads against b4
grep '^| [0-9][0-9][0-9] |' "$OUT/series.log" | cut -d' ' -f2 >"$OUT/threads" ||
	bench_fail "series: no thread compared with b4"
for t in $(cat "$OUT/threads"); do
	l=$(pick series "^| $t |")
	b4c=$(echo "$l" | awk -F'|' '{ split($3, a, ","); print a[2] + 0 }')
	lbc=$(echo "$l" | awk -F'|' '{ split($4, a, ","); print a[2] + 0 }')
	row "series of thread $t, CPU" "$lbc s" "b4 am -C: $b4c s" "$(ratio "$lbc" "$b4c")" \
		"bench/series.sh" "$(when series)"
done
l=$(pick series "^[0-9]* messages, [0-9]* MB, series.memory 28m (default)")
row "series --mbox, ${l%% *} generated messages (series.memory 28m: past it, the scratch file)" \
	"$(num "$l" "(CPU") s CPU, $(num "$l" "RSS") MB" "" "" "bench/series.sh" "$(when series)"
l=$(pick series "^[0-9]* messages, [0-9]* MB, in memory (--memory=1g)")
row "the same in memory (--memory=1g)" "$(num "$l" "(CPU") s CPU, $(num "$l" "RSS") MB" "" "" \
	"bench/series.sh" "$(when series)"
l=$(pick series "^[0-9]* messages: [0-9]* instructions")
row "series --mbox, ${l%% *} generated messages, instructions" \
	"$(echo "$l" | awk '{ printf "%.1f M", $3 / 1e6 }')" "" "" "bench/series.sh" "$(when series)"

# check: own checkers, checkpatch against checkpatch.pl
l=$(pick check "^own checkers")
row "check, own checkers, 9 patches of thread 000" \
	"$(num "$l" "cpu") ms CPU, $(echo "$l" | sed -n 's/.*instructions \([0-9]*\).*/\1/p' |
		awk '{ printf "%.1f M instructions", $1 / 1e6 }')" "" "" "bench/check.sh $RUNS" "$(when check)"
a=$(num "$(pick check "^lorebot check (checkpatch only)")" "cpu")
b=$(num "$(pick check "^checkpatch.pl one after another")" "cpu")
row "check, checkpatch only, 9 patches, CPU" "$a ms" "checkpatch.pl x9: $b ms" "$(ratio "$a" "$b")" \
	"bench/check.sh $RUNS" "$(when check)"
a=$(num "$(pick devcheck "^lorebot check, all checkers")" "cpu")
b=$(num "$(pick devcheck "^format-patch + checkpatch.pl")" "cpu")
n=$(pick devcheck "^[0-9]* patches, " | cut -d' ' -f1)
row "check --repo, all checkers, $n patches of a branch, CPU" "$a ms" \
	"format-patch + checkpatch.pl x$n: $b ms" "$(ratio "$a" "$b")" "bench/devcheck.sh $RUNS" \
	"$(when devcheck)"

# apply against git am
for i in 004-1 004 s20; do
	l=$(grep -m1 "^| $i  *| lorebot apply " "$OUT/apply.log") || continue
	a=$(echo "$l" | awk -F'|' '{ print $5 + 0 }')
	b=$(grep -m1 "^| $i  *| git am " "$OUT/apply.log" | awk -F'|' '{ print $5 + 0 }')
	row "apply $i, CPU" "$a s" "git am: $b s" "$(ratio "$a" "$b")" "EXPORT=0 bench/apply.sh" \
		"$(when apply)"
done

# the poll at 10,000 and at 1,000,000
a=$(grep '^poll of 10 messages' "$OUT/poll.log" | sed -n 1p)
b=$(grep '^poll of 10 messages' "$OUT/poll.log" | sed -n 2p)
[ -n "$b" ] || bench_fail "poll: not two sizes in its output"
row "poll of 10 messages at $P2 stored, instructions (the peer: at $P1)" \
	"$(num "$b" "MB,") M" "$(num "$a" "MB,") M" "$(ratio "$(num "$b" "MB,")" "$(num "$a" "MB,")")" \
	"bench/poll.sh $P1 $P2" "$(when poll)"
row "the same, CPU (10 ms steps)" "$(num "$b" "CPU median") s" "$(num "$a" "CPU median") s" \
	"$(ratio "$(num "$b" "CPU median")" "$(num "$a" "CPU median")")" \
	"bench/poll.sh $P1 $P2" "$(when poll)"
l=$(pick poll "^full rebuild at $P2")
row "full assembly of the $P2 (db rebuild), CPU, peak RSS" \
	"$(echo "$l" | awk '{ printf "%s s, %.0f MB", $6, $7 / 1024 }')" "" "" \
	"bench/poll.sh $P1 $P2" "$(when poll)"

# the dashboard at 100,000 versions
for p in / /api/series; do
	l=$(pick dash-load "^GET $p, [0-9]* versions: median")
	i=$(pick dash-load "^GET $p, [0-9]* versions: [0-9.]* M instructions")
	row "GET $p at $DV versions" \
		"p99 $(num "$l" "p99") ms, server CPU $(num "$l" "server CPU") ms a request" \
		"" "" "bench/dash-load.sh $DV" "$(when dash-load)"
	row "the same, instructions a request" "$(num "$i" "versions:") M" "" "" \
		"INSTR=5 bench/dash-load.sh $DV" "$(when dash-load)"
done

# catch-up from lore against curl and git
floor=$(num "$(pick lore "^floor: curl POST")" "messages:")
same=$(num "$(pick lore "^floor, same requests")" "in sequence:")
s=$(num "$(pick lore "^catch-up search, lore.batch=$LB:")" "messages in")
g=$(num "$(pick lore "^catch-up git")" "messages in")
gl=$(pick lore "^git alone: clone")
gf=$(echo "$gl" | awk '{ for (i = 1; i <= NF; i++) { if ($i == "clone") c = $(i + 1);
	if ($i == "blobs") r = $(i + 1) } print c + r }')
c=bench/lore.sh\ $LN\ $RUNS
row "catch-up of $LN messages by search (the default), wall" "$s s" "curl, all in one: $floor s" \
	"$(ratio "$s" "$floor")" "$c" "$(when lore)"
row "the same" "$s s" "curl, lorebot's own requests: $same s" "$(ratio "$s" "$same")" \
	"$c" "$(when lore)"
row "catch-up by git (lore.method git), wall" "$g s" "curl, all in one: $floor s" \
	"$(ratio "$g" "$floor")" "$c" "$(when lore)"
row "the same" "$g s" "git clone + cat-file of every blob: $gf s" "$(ratio "$g" "$gf")" \
	"$c" "$(when lore)"
l=$(pick lore "^idle poll")
i=$(pick lore "^git alone, idle fetch")
row "idle poll, nothing new" \
	"$(num "$l" "requests per poll") request, $(num "$l" "bytes in per poll") bytes in" \
	"git fetch: $(num "$i" "idle fetch:") requests, $(num "$i" "request(s),") bytes in" "" \
	"$c" "$(when lore)"

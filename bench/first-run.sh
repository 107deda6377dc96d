#!/bin/sh
# What a fresh machine costs: `make test` and `make demo` from a fresh
# clone, cold (an empty LOREBOT_CACHE) and then warm (the same cache
# again, another fresh clone), as CI and a new user meet them.
#
# usage: bench/first-run.sh [test|demo]...   (default: test demo)
#
# Environment: BENCH_DIR (default /var/tmp/lorebot-bench-first-run; it
# is emptied), REPO (what to clone, default this checkout's HEAD),
# TEST_CACHE (the cache of the make test runs, default in BENCH_DIR:
# /var/cache/lorebot leaves CI a warm cache; it must be empty).
# Prints, per run, the wall time, the CPU time of all tests (every
# process, ci/run-one.sh) and the five slowest test files as prove
# --timer reported them; the logs stay in BENCH_DIR.
# Not run by `make bench` (over an hour with kernel builds): by hand.  A
# make that fails fails the benchmark (after its report).  BENCH_TINY=1:
# nothing is run (the test says so).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/lib.sh"
if bench_tiny; then
	bench_skip "every run (make test, make demo)" "over an hour from a fresh clone, by hand only"
	exit 0
fi
dir=${BENCH_DIR:-/var/tmp/lorebot-bench-first-run}
repo=${REPO:-$src}
what=${*:-test demo}

case $dir in /|/tmp|/var/tmp|"$HOME") echo "refusing BENCH_DIR=$dir" >&2; exit 2;; esac
if [ -n "${TEST_CACHE:-}" ] && [ -n "$(ls -A "$TEST_CACHE" 2>/dev/null)" ]; then
	echo "TEST_CACHE=$TEST_CACHE is not empty: no cold run there" >&2
	exit 2
fi
rm -rf "$dir"
mkdir -p "$dir"

# run NAME TARGET: a fresh clone, make TARGET with the cache of TARGET
# (empty the first time), wall time in $dir/NAME.time, each test's CPU
# time in $dir/NAME.cpu
run() {
	cache=$dir/cache-$2
	[ "$2" = test ] && cache=${TEST_CACHE:-$cache}
	rm -rf "$dir/$1"
	mkdir -p "$cache"
	git clone -q "$repo" "$dir/$1"
	start=$(date +%s)
	rc=0
	(cd "$dir/$1" && LOREBOT_CACHE=$cache TEST_CPU_LOG=$dir/$1.cpu \
		make "$2") >"$dir/$1.log" 2>&1 || rc=$?
	end=$(date +%s)
	echo "$((end - start)) $rc $(cut -d' ' -f1 /proc/loadavg)" >"$dir/$1.time"
	# the demo leaves its dashboard running
	[ -f "$dir/$1/demo-state/serve.pid" ] &&
		kill "$(cat "$dir/$1/demo-state/serve.pid")" 2>/dev/null || true
}

# report NAME: one line of the table, the slowest tests of a make test
report() {
	set -- "$1" $(cat "$dir/$1.time")
	printf '%s: %d min %02d s (exit %s, load at the end %s)\n' "$1" \
		$(($2 / 60)) $(($2 % 60)) "$3" "$4"
	[ -s "$dir/$1.cpu" ] && awk '{ c += $1 } END { printf "    CPU of all tests: %.0f s\n", c }' \
		"$dir/$1.cpu"
	grep -E '^\[[0-9:]+\] .* (ok|Failed|Dubious)' "$dir/$1.log" 2>/dev/null |
		sed -n 's/^\[[0-9:]*\] \([^ ]*\) \.* [a-zA-Z]* *\([0-9]*\) ms.*/\2 \1/p' |
		sort -rn | head -n 5 | while read -r ms t; do
			cpu=$(awk -v t="$t" '$3 == t { print $1 }' "$dir/$1.cpu" 2>/dev/null)
			printf '    %-40s %5.1f min wall, %s CPU s\n' "$t" \
				"$(echo "$ms" | awk '{ print $1 / 60000 }')" "${cpu:-?}"
		done
}

cd "$src"
echo "$(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)," \
	"load $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$repo" describe --always --dirty)"
for w in $what; do
	for r in "$w-cold" "$w-warm"; do
		run "$r" "$w"
		report "$r"
		[ "$(cut -d' ' -f2 "$dir/$r.time")" = 0 ] ||
			bench_fail "$r: make $w exited $(cut -d' ' -f2 "$dir/$r.time") (see $dir/$r.log)"
	done
done

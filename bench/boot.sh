#!/bin/sh
# Benchmark the boot stage (issue 7): per arch, the time from a built
# kernel image to the results of the default mm kselftest list under
# qemu (TCG here), split into preparing the initramfs (the selftests are
# cached), booting (guest uptime when the init starts), running the
# tests (the init's own clock) and the whole qemu run (host wall clock).
# The kernels come from the boot stage's cache (built on first use).
# usage: bench/boot.sh [RUNS]   (default 3; the median is shown)
# A boot that does not end with the tests run (exit 0 or 1: a test that
# failed is a result; 3, an infrastructure failure, is not) fails the
# benchmark.  BENCH_TINY=1: nothing is booted (minutes of TCG a kernel;
# the test says so).
set -eu
cd "$(dirname "$0")/.."
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
RUNS=${1:-3}
if bench_tiny; then
	bench_skip "every boot" "kernels are built and booted in minutes, not in the tiny mode"
	exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

mm=$(ci/mm-tree.sh)
git clone -q --bare --shared "$mm" "$TMP/repo.git"

bench_header
echo "qemu: $(qemu-system-x86_64 --version | head -1)"
printf '%-7s %5s %8s %8s %8s %8s %8s %s\n' arch tests prep_s boot_s tests_s qemu_s wall_s accel
for arch in x86_64 arm64 riscv; do
	# the first run builds the kernel and the selftests if they are not cached
	bench_run -s 0,1 -o "$TMP/warm.json" "$LOREBOT" boot --repo "$TMP/repo.git" \
		--series mm-new --no-base --arch "$arch" --json
	i=0
	while [ $i -lt "$RUNS" ]; do
		start=$(date +%s.%N)
		bench_run -s 0,1 -o "$TMP/run$i.json" "$LOREBOT" boot --repo "$TMP/repo.git" \
			--series mm-new --no-base --arch "$arch" --json
		end=$(date +%s.%N)
		echo "$start $end" >"$TMP/wall$i"
		i=$((i + 1))
	done
	python3 - "$TMP" "$RUNS" <<'PY'
import json, sys, statistics
tmp, runs = sys.argv[1], int(sys.argv[2])
rows = []
for i in range(runs):
    a = json.load(open(f"{tmp}/run{i}.json"))["archs"][0]
    s, e = map(float, open(f"{tmp}/wall{i}").read().split())
    t = a["timings"]
    rows.append((t["build_ms"] / 1000, t["boot_ms"] / 1000, t["tests_ms"] / 1000,
                 t["total_ms"] / 1000, e - s, a))
med = lambda k: statistics.median(r[k] for r in rows)
a = rows[0][5]
n = len([t for t in a["tests"] if t["result"] != "skip"])
if not n:
    sys.exit(f"bench boot: FAILED: {a['arch']}: no test ran ({a['status']})")
print(f"{a['arch']:<7} {n:5d} {med(0):8.1f} {med(1):8.1f} {med(2):8.1f} {med(3):8.1f} "
      f"{med(4):8.1f} {a['accel'].split(':')[0]} ({a['status']})")
PY
done

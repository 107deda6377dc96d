#!/bin/sh
# The two-series workload with the local executor and with the Slurm
# executor, side by side, on this machine: two 2-patch series (comments
# in mm/, tests/gen-series.py) through apply, check, build and boot on
# x86_64, arm64 and riscv, `lorebot daemon --once` from a database that
# holds both (no lore: the mail is fetched from an mbox first).
#
# usage: bench/slurm-makespan.sh [ROUNDS]   (default 2: local, slurm, local, slurm)
#
# Runs alternate, each from a fresh database, on the same warm base build
# directories ($LOREBOT_CACHE, /var/cache/lorebot as root; the first run
# on a machine builds each arch's base first: run the bench twice, or
# `make test` before).  Prints per run the makespan, the machine's CPU
# seconds (all processes, /proc/stat) and the mean wall time of a build
# and of a boot job as the jobs table records them (for Slurm: from
# submission to the end of the job, queueing included), then the Slurm
# overhead per heavy job: (makespan slurm - makespan local) / heavy jobs.
# Needs root and the Slurm packages (the tests' one-machine lab,
# tests/slurm-lab.sh).  Numbers in bench/README.md.
# A daemon run that fails, or leaves a build or boot job not done, fails
# the benchmark.  BENCH_TINY=1: nothing is run (builds and boots of three
# arches; the test says so).
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
. "$SRC/bench/lib.sh"
ROUNDS=${1:-2}
ARCHS=x86_64,arm64,riscv
if bench_tiny; then
	bench_skip "every run" "builds and boots of three arches, not the tiny mode"
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v sbatch >/dev/null; then
	bench_skip "every run" "needs root and slurmctld slurmd slurm-client munge"
	exit 0
fi
D=$(mktemp -d /tmp/lorebot-bench-makespan.XXXXXX)
trap 'tests/slurm-lab.sh stop "$D/lab" >/dev/null 2>&1; rm -rf "$D"' EXIT
MM=$(ci/mm-tree.sh)
git clone -q --bare --shared "$MM" "$D/mm.git"
for s in alpha beta; do
	python3 tests/gen-series.py --repo "$MM" --name "$s" --patches 2 \
		--mbox "$D/$s.mbox"
done
cat "$D/alpha.mbox" "$D/beta.mbox" >"$D/series.mbox"
tests/slurm-lab.sh start "$D/lab" >/dev/null
export SLURM_CONF=$D/lab/slurm.conf
DEAD=http://127.0.0.1:9/linux-mm/

# conf FILE [KEY=VALUE]...: the configuration of a run
conf() {
	_f=$1
	shift
	: >"$_f"
	for kv in daemon.window=0 reply.mode=outbox lore.retries=0 lore.backoffmax=10m \
		build.jobs=2 "$@"; do
		git config -f "$_f" "${kv%%=*}" "${kv#*=}"
	done
}
conf "$D/local.conf"
conf "$D/slurm.conf" daemon.executor=slurm

cpu() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# run NAME CONF: one daemon --once over both series, fresh state
run() {
	st=$D/$1
	rm -rf "$st"
	mkdir -p "$st"
	"$LOREBOT" --db "$st/db" fetch --mbox "$D/series.mbox" --list linux-mm >/dev/null
	c0=$(cpu)
	t0=$(date +%s.%N)
	"$LOREBOT" --db "$st/db" --config "$2" daemon --url "$DEAD" --repo "$D/mm.git" \
		--outbox "$st/outbox" --arch "$ARCHS" --once 2>"$st/daemon.err" ||
		bench_fail "$1 failed: $(tail -3 "$st/daemon.err")"
	t1=$(date +%s.%N)
	c1=$(cpu)
	done=$(sqlite3 "$st/db" "SELECT count(*) FROM jobs WHERE kind IN ('build', 'boot') AND state = 'done'")
	bad=$(sqlite3 "$st/db" "SELECT count(*) FROM jobs WHERE kind IN ('build', 'boot') AND state != 'done'")
	[ "$bad" = 0 ] && [ "$done" -gt 0 ] ||
		bench_fail "$1: $done build and boot jobs done, $bad not"
	mean() {
		sqlite3 "$st/db" "SELECT printf('%.1f', avg(finished - started)) FROM jobs
			WHERE kind = '$1' AND state = 'done'"
	}
	echo "$1 $(echo "$t1 - $t0" | bc) $(( (c1 - c0) / 100 )) $done $(mean build) $(mean boot)" >>"$D/runs"
	printf '%-8s makespan %6.1f s, CPU %5d s, %s heavy jobs, build %s s, boot %s s (load %s)\n' \
		"$1" "$(echo "$t1 - $t0" | bc)" $(( (c1 - c0) / 100 )) "$done" \
		"$(mean build)" "$(mean boot)" "$(cut -d' ' -f1 /proc/loadavg)"
}

echo "$(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)," \
	"load $(cut -d' ' -f1-3 /proc/loadavg), $(git describe --always --dirty)"
# a first local run that is not counted: the build directories then hold
# what every later run starts from
run warmup "$D/local.conf" >/dev/null
i=0
while [ $i -lt "$ROUNDS" ]; do
	run local "$D/local.conf"
	run slurm "$D/slurm.conf"
	i=$((i + 1))
done
awk '{ n[$1]++; m[$1] += $2; j[$1] = $4 }
     END { ml = m["local"] / n["local"]; ms = m["slurm"] / n["slurm"]
	   printf "mean makespan: local %.1f s, slurm %.1f s; Slurm overhead per heavy job %.2f s\n",
		  ml, ms, (ms - ml) / j["slurm"] }' "$D/runs"

#!/bin/sh
# Slurm's overhead per job against a local child, on this machine: the
# same trivial job (/bin/true) N times (default 20), one after the other,
# (a) as a child process, (b) with sbatch and squeue polled every
# POLL seconds (default 0.2) until Slurm lists it COMPLETED, as the Slurm
# executor did before it read the exit file (slurm.pollinterval), (c)
# with sbatch and the job's exit file looked for every 0.25 s, as the
# executor does now, (d) with sbatch --wait.  The Slurm
# is the tests' one-machine lab (tests/slurm-lab.sh, under nice 19).
# Needs root and the Slurm packages; skips otherwise (and says so).  A
# job that fails or does not end within 5 minutes fails the benchmark.
# Numbers in bench/README.md.  BENCH_TINY=1: 2 jobs of each.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
N=${N:-20}
POLL=${POLL:-0.2}
! bench_tiny || N=2
if [ "$(id -u)" != 0 ] || ! command -v sbatch >/dev/null; then
	bench_skip "every job" "needs root and slurmctld slurmd slurm-client munge"
	exit 0
fi
D=$(mktemp -d /tmp/lorebot-bench-slurm.XXXXXX)
trap 'tests/slurm-lab.sh stop "$D/lab" >/dev/null 2>&1; rm -rf "$D"' EXIT
tests/slurm-lab.sh start "$D/lab" >"$D/lab.out" 2>&1 ||
	bench_fail "the Slurm lab did not start: $(tail -3 "$D/lab.out")"
export SLURM_CONF=$D/lab/slurm.conf
now() { date +%s.%N; }
# waiting WHAT: fail when this job has waited 5 minutes
waiting() {
	[ "$(date +%s)" -lt "$((T0 + 300))" ] || bench_fail "$1: not done in 5 minutes"
}
per() { echo "$1 $2 $N" | awk '{ printf "%.3f", ($2 - $1) / $3 }'; }

# per_job FN: the wall per run of FN, N runs one after the other
per_job() {
	t0=$(now)
	i=0
	while [ $i -lt "$N" ]; do
		"$1"
		i=$((i + 1))
	done
	per "$t0" "$(now)"
}
child() {
	nice -n 19 /bin/true
}
polled() {
	T0=$(date +%s)
	id=$(sbatch --parsable --output=/dev/null --chdir="$D" --wrap /bin/true) ||
		bench_fail "sbatch failed"
	until [ "$(squeue --noheader --states=all --jobs="$id" --format=%T)" = COMPLETED ]; do
		case $(squeue --noheader --states=all --jobs="$id" --format=%T) in
		FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) bench_fail "job $id failed" ;;
		esac
		waiting "job $id"
		sleep "$POLL"
	done
}
# the executor's way since the exit file: the batch script leaves the
# status in the job's directory, the daemon looks for it every 0.25 s
n_filed=0
filed() {
	n_filed=$((n_filed + 1))
	f=$D/exit.$n_filed
	T0=$(date +%s)
	sbatch --parsable --output=/dev/null --chdir="$D" \
		--wrap "/bin/true; echo \$? >$f.tmp && mv -f $f.tmp $f" >/dev/null ||
		bench_fail "sbatch failed"
	until [ -f "$f" ]; do
		waiting "the job of $f"
		sleep 0.25
	done
	[ "$(cat "$f")" = 0 ] || bench_fail "the job of $f exited $(cat "$f")"
}
waited() {
	bench_run timeout 300 sbatch --parsable --wait --output=/dev/null --chdir="$D" --wrap /bin/true
}
bench_header
local_s=$(per_job child)
poll_s=$(per_job polled)
file_s=$(per_job filed)
wait_s=$(per_job waited)

echo "$N trivial jobs, wall per job: local ${local_s} s," \
	"sbatch + squeue every ${POLL} s ${poll_s} s," \
	"sbatch + exit file every 0.25 s ${file_s} s, sbatch --wait ${wait_s} s" \
	"(load $(cut -d' ' -f1 /proc/loadavg))"

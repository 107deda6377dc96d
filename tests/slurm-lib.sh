# Helpers for the tests of the Slurm executor; source after lib.sh.
#
#	slurm_setup [CPUS]     start the lab (tests/slurm-lab.sh) in $TMP/slurm,
#	                       stopped at the end; exports SLURM_CONF; skips the
#	                       whole test when Slurm is not installed or not root
#	wait_for TENTHS CMD..  CMD succeeds within TENTHS tenths of a second
#	slurm_jobs_in DIR      how many jobs Slurm knows (MinJobAge keeps ended
#	                       ones an hour) that ran in DIR
#	slurm_state ID         Slurm's JobState of job ID

SLURM_LAB=$LOREBOT_SRC/tests/slurm-lab.sh

slurm_setup() {
	for p in slurmctld slurmd munged sbatch squeue scontrol scancel; do
		command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
			skip_all "no $p (ci/deps.sh installs slurmctld slurmd slurm-client munge)"
	done
	[ "$(id -u)" = 0 ] || skip_all "the Slurm lab runs its daemons as root"
	SLAB=$TMP/slurm
	cleanup_add "'$SLURM_LAB' stop '$SLAB'"
	"$SLURM_LAB" start "$SLAB" ${1:+"$1"} >"$TMP/slurm.env" 2>"$TMP/slurm.err" || {
		sed 's/^/# /' "$TMP/slurm.err"
		echo "Bail out! cannot start the Slurm lab"
		exit 1
	}
	export SLURM_CONF=$SLAB/slurm.conf
}

wait_for() {
	_n=$1
	shift
	_i=0
	until "$@" >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ "$_i" -le "$_n" ] || return 1
		sleep 0.1
	done
}

slurm_jobs_in() {
	squeue --noheader --states=all --format='%Z' | grep -cxF "$1"
}

slurm_state() {
	squeue --noheader --states=all --jobs="$1" --format=%T 2>/dev/null
}

#!/bin/sh
# A one-machine Slurm cluster for the tests: munged with a test key,
# slurmctld and one slurmd on 127.0.0.1, every file in one directory.
#
#   slurm-lab.sh start DIR [CPUS]   write DIR/slurm.conf, start munged,
#                                   slurmctld and slurmd (node "lab1" with
#                                   CPUS, default nproc), wait until the node
#                                   is idle; prints the SLURM_CONF to export
#   slurm-lab.sh stop DIR           stop the three (by their PID files, each
#                                   checked to be ours), bounded waits
#   slurm-lab.sh env DIR            print "SLURM_CONF=DIR/slurm.conf"
#
# What works in a container without systemd (cgroups v1, root): no cgroup
# plugin at all (ProctrackType=proctrack/pgid, TaskPlugin=task/none,
# JobAcctGatherType=jobacct_gather/none), no accounting storage (no
# slurmdbd: sacct has nothing, squeue and scontrol do, finished jobs are
# kept MinJobAge = 1 h), munge on a socket of its own (AuthInfo=socket=).
# Batch jobs are scheduled when they come (batch_sched_delay=0: Slurm's
# default of 3 s held every job that long before it started).
# Ports are free ones picked at start.  Every daemon runs under nice 19.
set -eu

die() {
	echo "slurm-lab: $*" >&2
	exit 1
}

abspath() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$PWD/$1" ;;
	esac
}

free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# pid of NAME if its PID file names a live process of that program
lab_pid() {
	f=$1/run/$2.pid
	[ -f "$f" ] || return 1
	pid=$(cat "$f")
	[ -n "$pid" ] || return 1
	case $(readlink "/proc/$pid/exe" 2>/dev/null) in
	*/"$2"*) echo "$pid" ;;
	*) return 1 ;;
	esac
}

# wait_until TRIES CMD...: CMD succeeds within TRIES tenths of a second
wait_until() {
	n=$1
	shift
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -le "$n" ] || return 1
		sleep 0.1
	done
}

write_conf() {
	D=$1 cpus=$2
	cat >"$D/slurm.conf" <<EOF
ClusterName=lorebotlab
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/run/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=3600
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
Waittime=0
NodeName=lab1 NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=lab Nodes=lab1 Default=YES MaxTime=INFINITE State=UP
EOF
}

node_idle() {
	SLURM_CONF=$1/slurm.conf scontrol -o show node lab1 2>/dev/null |
		grep -Eq 'State=IDLE( |$)'
}

cmd_start() {
	D=$(abspath "$1")
	cpus=${2:-$(nproc)}
	for p in munged slurmctld slurmd; do
		command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] ||
			die "$p is not installed (apt-get install slurmctld slurmd slurm-client munge)"
	done
	mkdir -p "$D/run" "$D/state" "$D/spool" "$D/log" "$D/munge"
	chmod 700 "$D/run" "$D/munge"
	[ -f "$D/munge/munge.key" ] ||
		dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$D/munge/munge.key"
	write_conf "$D" "$cpus"
	export SLURM_CONF="$D/slurm.conf"
	PATH=$PATH:/usr/sbin
	# --force: as root, in a directory under the world-writable /tmp
	nice -n 19 munged --force --key-file="$D/munge/munge.key" \
		--socket="$D/run/munge.sock" --pid-file="$D/run/munged.pid" \
		--log-file="$D/log/munged.log" --seed-file="$D/munge/seed" \
		>>"$D/log/start.log" 2>&1 || die "munged did not start: $(tail -3 "$D/log/munged.log")"
	wait_until 50 test -S "$D/run/munge.sock" || die "munged: no socket"
	nice -n 19 slurmctld -f "$SLURM_CONF" >>"$D/log/start.log" 2>&1 ||
		die "slurmctld did not start: $(tail -3 "$D/log/slurmctld.log")"
	wait_until 300 scontrol ping ||
		die "slurmctld does not answer: $(tail -3 "$D/log/slurmctld.log")"
	nice -n 19 slurmd -f "$SLURM_CONF" -N lab1 >>"$D/log/start.log" 2>&1 ||
		die "slurmd did not start: $(tail -3 "$D/log/slurmd.log")"
	wait_until 300 node_idle "$D" ||
		die "node lab1 is not idle: $(scontrol -o show node lab1 2>&1 | grep -o 'State=[^ ]*'); $(tail -3 "$D/log/slurmd.log")"
	echo "SLURM_CONF=$SLURM_CONF"
}

stop_one() {
	D=$1 name=$2
	pid=$(lab_pid "$D" "$name") || return 0
	kill -TERM "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			kill -KILL "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.1
	done
	rm -f "$D/run/$name.pid"
}

cmd_stop() {
	D=$(abspath "$1")
	[ -d "$D" ] || return 0
	stop_one "$D" slurmd
	stop_one "$D" slurmctld
	stop_one "$D" munged
	# the steps of jobs still running (proctrack/pgid: their own groups)
	for f in "$D"/spool/*/job*; do
		[ -e "$f" ] || continue
	done
}

cmd=${1:-}
[ $# -ge 2 ] || die "usage: slurm-lab.sh start|stop|env DIR"
shift
case $cmd in
start) cmd_start "$@" ;;
stop) cmd_stop "$@" ;;
env) echo "SLURM_CONF=$(abspath "$1")/slurm.conf" ;;
*) die "unknown command '$cmd'" ;;
esac

# Sourced by bench/*.sh: how a benchmark runs what it measures, and how it
# fails.  A benchmark fails (exit 1, "bench NAME: FAILED: why" on stderr)
# when a command it measures fails: bench_run, bench_time and bench_ir
# check the exit status (the statuses a command may end with are named,
# -s 0,1: lorebot check exits 1 on findings), the caller checks what was
# stored or printed (bench_expect).  Nothing is measured of a run that
# did not do the work.
#
# BENCH_TINY=1: the tiny mode (tests/t0957-bench-tiny.t): each benchmark
# on small inputs, once, to see that its harness works; what it leaves out
# it says with bench_skip.  Its figures mean nothing.
BENCH=${BENCH:-$(basename "$0" .sh)}
BENCH_TINY=${BENCH_TINY:-0}

bench_fail() {
	printf 'bench %s: FAILED: %s\n' "$BENCH" "$*" >&2
	exit 1
}

# bench_skip WHAT WHY: a part not run, on stdout (the table says so)
bench_skip() {
	printf 'bench %s: skipped: %s: %s\n' "$BENCH" "$1" "$2"
}

bench_tiny() {
	[ "$BENCH_TINY" = 1 ]
}

# One line: where and when a figure was taken
bench_header() {
	printf '%s: %s cores, %s, load %s, %s, lorebot %s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
		"$(nproc)" "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)" \
		"$(cut -d' ' -f1-3 /proc/loadavg)" \
		"$(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null || echo '?')" \
		"$("${LOREBOT:-lorebot}" --version 2>/dev/null || echo '?')"
}

# _bench_status_ok STATUS LIST: STATUS is in the comma-separated LIST
_bench_status_ok() {
	case ",$2," in
	*,"$1",*) return 0 ;;
	esac
	return 1
}

# bench_run [-s STATUSES] [-o OUT] [-e ERR] [--] CMD...: run CMD, its
# stdout to OUT and stderr to ERR (default: discarded, kept for the
# message); fail unless it exits with one of STATUSES (default 0)
bench_run() {
	_bench_do run "$@"
}

# bench_time [options of bench_run] CMD...: as bench_run, and prints
# "WALL CPU RSS" of the run: seconds of wall, seconds of CPU (user +
# system, its children waited for included), peak RSS in KB
bench_time() {
	_bench_do time "$@"
}

# bench_ir [-J] [-k FILE] [options of bench_run] CMD...: as bench_run,
# under callgrind, and prints the instructions it executed (-k: callgrind's
# output kept in FILE, for callgrind_annotate).  Fails when a
# process of the run could not leave its counts (a child in lorebot's
# jail, whose root has nowhere to write them) unless -J says that the
# count is of the processes outside the jail (then it says so on
# stderr), when the run was counted in more than one process (a forked
# child's count includes its parent's), and when valgrind is missing.
bench_ir() {
	_bench_do ir "$@"
}

# _bench_check RC OK ERRFILE CMD...: fail with the command, its status
# and the end of its stderr unless RC is one of OK (the temporary files
# of _bench_do removed first)
_bench_check() {
	_bench_status_ok "$1" "$2" && return 0
	_bd_c=$1 _bd_k=$2 _bd_f=$3
	shift 3
	_bd_tail=$(tail -n 5 "$_bd_f" 2>/dev/null | tr '\n' ' ')
	rm -rf "$_bd_v"
	[ -n "$_bd_err" ] || rm -f "$_bd_e"
	bench_fail "'$*' exited $_bd_c (expected $_bd_k): $_bd_tail"
}

_bench_do() {
	_bd_mode=$1 _bd_ok=0 _bd_out=/dev/null _bd_err= _bd_jail= _bd_keep=
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		-J) _bd_jail=1; shift ;;
		-k) _bd_keep=$2; shift 2 ;;
		-s) _bd_ok=$2; shift 2 ;;
		-o) _bd_out=$2; shift 2 ;;
		-e) _bd_err=$2; shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ "$_bd_mode" != ir ] || command -v valgrind >/dev/null ||
		bench_fail "no valgrind: instructions cannot be counted"
	_bd_e=${_bd_err:-$(mktemp "${TMPDIR:-/tmp}/lorebot-bench-err.XXXXXX")}
	_bd_v=$(mktemp -d "${TMPDIR:-/tmp}/lorebot-bench-run.XXXXXX")
	_bd_rc=0
	case $_bd_mode in
	run) "$@" >"$_bd_out" 2>"$_bd_e" || _bd_rc=$? ;;
	time) /usr/bin/time -f '%e %U %S %M' -o "$_bd_v/time" "$@" >"$_bd_out" 2>"$_bd_e" || _bd_rc=$? ;;
	ir)
		valgrind --tool=callgrind --log-file="$_bd_v/log.%p" \
			--callgrind-out-file="$_bd_v/out.%p" "$@" >"$_bd_out" 2>"$_bd_e" || _bd_rc=$?
		cat "$_bd_v"/log.* >>"$_bd_e" ;;
	esac
	_bench_check "$_bd_rc" "$_bd_ok" "$_bd_e" "$@"
	case $_bd_mode in
	# time writes "Command exited with non-zero status N" first then
	time) tail -n 1 "$_bd_v/time" | awk '{ printf "%.3f %.3f %d\n", $1, $2 + $3, $4 }' ;;
	ir)
		_bd_lost=$(cat "$_bd_v"/log.* | grep -c 'can not open cache simulation output file' || true)
		_bd_n=$(ls "$_bd_v" | grep -c '^out\.' || true)
		_bd_why=
		[ "$_bd_lost" = 0 ] || [ -n "$_bd_jail" ] ||
			_bd_why="a process it started could not leave its counts (callgrind cannot write from a jail's root)"
		[ "$_bd_n" = 1 ] || _bd_why="counted in $_bd_n processes, not one"
		if [ -n "$_bd_why" ]; then
			rm -rf "$_bd_v"
			[ -n "$_bd_err" ] || rm -f "$_bd_e"
			bench_fail "'$*': $_bd_why: not measured"
		fi
		[ "$_bd_lost" = 0 ] || printf 'bench %s: note: the processes in the jail not counted\n' \
			"$BENCH" >&2
		sed -n 's/^summary: *//p' "$_bd_v"/out.*
		[ -z "$_bd_keep" ] || cp "$_bd_v"/out.* "$_bd_keep" ;;
	esac
	rm -rf "$_bd_v"
	[ -n "$_bd_err" ] || rm -f "$_bd_e"
}

# bench_expect WHAT WANT GOT: the run did the work (stored, printed) that
# it was to do
bench_expect() {
	[ "$2" = "$3" ] || bench_fail "$1: expected $2, got $3"
}

#!/bin/sh
# Run every benchmark script in bench/ (make bench); see bench/README.md.
# Those that make what others read first (poll.sh's archives for
# daemon-poll.sh, dash-load.sh's versions for sigterm.sh); first-run.sh
# (an hour and more from a fresh clone) only by hand.  The first that
# fails stops the run with its reason.  BENCH_TINY=1 runs each in its
# tiny mode (tests/t0957-bench-tiny.t).
set -eu
cd "$(dirname "$0")"
for b in ./poll.sh ./dash-load.sh $(ls ./*.sh | grep -v '^\./\(poll\|dash-load\)\.sh$'); do
	case $b in
	./run.sh | ./lib.sh | ./serve-lib.sh) continue ;;
	./first-run.sh)
		echo "== $b: not run (by hand: bench/first-run.sh)"
		continue ;;
	esac
	echo "== $b"
	"$b"
done

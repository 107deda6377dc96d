#!/bin/sh
# Run every benchmark script in bench/ (make bench); see bench/README.md.
set -eu
cd "$(dirname "$0")"
for b in ./*.sh; do
	[ "$b" = ./run.sh ] && continue
	echo "== $b"
	"$b"
done

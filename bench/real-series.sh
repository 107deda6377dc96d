#!/bin/sh
# lorebot against git mailinfo and b4 am on real list traffic (issue 45):
# bench/real-series.py on linux-xfs, designed on 2023 (the design set) and
# reported on 2025-01..2026-03 (the report set) and on 2024 (the third set,
# first read after the fixes the report set led to): a few thousand patch
# mails field by field, 300 threads each.  Figures in bench/README.md.
#
# usage: [MIRROR=DIR] bench/real-series.sh [OUTDIR]   (default bench/out/real)
# MIRROR is a git mirror of linux-xfs's public-inbox epoch 0 (one commit a
# message): github.com/linux-mailinglist-archives/linux-xfs.vger.kernel.org.0.
# Without it the benchmark is skipped (it is not in the repository: 260 MB).
# b4's readings are kept in OUTDIR/*/b4/ (an hour on 2 cores the first time).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
OUT=${1:-bench/out/real}
if [ -z "${MIRROR:-}" ] || [ ! -d "$MIRROR" ]; then
	bench_skip "every comparison" "MIRROR (a git mirror of linux-xfs) not given"
	exit 0
fi
command -v b4 >/dev/null || bench_fail "b4 is not installed"
rc=0
for set in design:2023-01-01:2024-01-01 report:2025-01-01:2026-04-01 \
	third:2024-01-01:2025-01-01; do
	name=${set%%:*}
	range=${set#*:}
	if [ ! -f "$OUT/$name/threads.tsv" ]; then
		python3 bench/real-series.py build "$MIRROR" "$OUT/$name" \
			--since "${range%%:*}" --until "${range#*:}" --threads 300
	fi
	echo "== $name set (${range%%:*} .. ${range#*:})"
	python3 bench/real-series.py compare "$OUT/$name" --list \
		--json "$OUT/$name.json" || rc=1
done
exit $rc

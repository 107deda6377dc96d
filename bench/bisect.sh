#!/bin/sh
# Benchmark the boot stage's confirmation and bisection (issue 41): the
# fixture series of tests/t0614-boot-bisect.t (n patches, patch k adds
# WARN_ON_ONCE(1) to madvise_populate(), which the madv_populate
# kselftest reaches; the others change what the small profile does not
# compile), each booted twice by `lorebot boot --tests madv_populate`.
# Before the first run the base's cached runs of madv_populate on that
# arch are removed, so that it confirms on a cold cache (one boot of the
# base); the second finds them warm.  The first run also builds the
# kernels the bisection boots unless the cache has them (the test's
# commits are the same: after t0614 it has them).  Per series and arch:
# the patch named, the probes and boots of the series' kernels against
# ceil(log2 n) + 1, the base's boots, and the seconds of the tip's own
# boot, of the base's runs (cold, warm), of the probes (with any kernel
# builds), and of each whole command.
# usage: bench/bisect.sh [ARCHS]   (default: 12 patches on x86_64, 5 on
# arm64, 2 on riscv, as the test; ARCHS runs every series on each)
# KEEP_BASE=1 leaves the base's cached runs as they are (both runs warm:
# safe beside make test); SERIES="2 5" runs only the series of 2 and 5.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
# it removes the machine's cached base runs of madv_populate to measure
# them cold: never beside make test, whose t0614 counts on them
if bench_tiny; then
	bench_skip "every series" "kernels are built and booted in minutes, and the base's cached runs removed, not in the tiny mode"
	exit 0
fi
ARCHS=${1:-x86_64}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export GIT_AUTHOR_NAME="lorebot test" GIT_AUTHOR_EMAIL=test@lorebot.invalid
export GIT_COMMITTER_NAME="lorebot test" GIT_COMMITTER_EMAIL=test@lorebot.invalid
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

mm=$(ci/mm-tree.sh)
CACHE=${LOREBOT_CACHE:-$("$LOREBOT" config --get core.cachedir 2>/dev/null || echo /var/cache/lorebot)}
[ -d "$CACHE/boot" ] || CACHE=/var/cache/lorebot
R=$TMP/repo
git clone -q --shared "$mm" "$R"
git -C "$R" checkout -q mm-new

commit() {
	GIT_AUTHOR_DATE="2026-03-01T10:00:$(printf %02d "$2") +0000" \
	GIT_COMMITTER_DATE="2026-03-01T10:00:$(printf %02d "$2") +0000" \
		git -C "$R" commit -q -a -m "$1" -m "Signed-off-by: lorebot test <test@lorebot.invalid>"
}

# as tests/t0614-boot-bisect.t makes them
series() {
	git -C "$R" checkout -q mm-new
	git -C "$R" branch -q -D "$1" 2>/dev/null || true
	git -C "$R" checkout -q -b "$1" mm-new
	i=1
	while [ "$i" -le "$2" ]; do
		if [ "$i" = "$3" ]; then
			git -C "$R" apply "$SRC/tests/fixtures/boot/warn-madvise-populate.patch"
			commit "mm/madvise: warn when populating" "$i"
		elif [ $((i % 2)) = 0 ]; then
			echo "Note $i of the $1 series." >>"$R/Documentation/mm/index.rst"
			commit "Documentation/mm: note $i" "$i"
		else
			sed -i "0,/^#include/s//#define HMM_LOREBOT_NOTE_$i $i\n&/" "$R/mm/hmm.c"
			commit "mm/hmm: define note $i" "$i"
		fi
		i=$((i + 1))
	done
}

now() {
	date +%s.%N
}

# boot N ARCH OUT: lorebot boot of series sN, which finds something (exit 1)
boot() {
	rc=0
	"$LOREBOT" boot --repo "$R" --series "s$1" --arch "$2" --tests madv_populate \
		--json >"$3" 2>"$3.err" || rc=$?
	[ "$rc" = 1 ] || {
		cat "$3.err" >&2
		bench_fail "lorebot boot exited $rc, not 1"
	}
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "lorebot: $(git rev-parse --short HEAD), boot.confirm $("$LOREBOT" config --get boot.confirm)"
printf '%-3s %-7s %-5s %-6s %-5s %-5s %-5s %-6s %-7s %-7s %-8s %-6s %-6s\n' n arch found probes boots bound base tip_s base1_s base2_s probes_s run1_s run2_s
for spec in 12:9:x86_64 5:2:arm64 2:2:riscv; do
	n=${spec%%:*} rest=${spec#*:} k=${rest%%:*} def=${rest#*:}
	case " ${SERIES:-$n} " in
	*" $n "*) ;;
	*) continue ;;
	esac
	series "s$n" "$n" "$k"
	for arch in $(echo "${1:-$def}" | tr ',' ' '); do
		# the base's runs of the test, cold
		[ -n "${KEEP_BASE:-}" ] ||
			rm -f "$CACHE"/boot/base/"$arch"/runs-*/madv_populate.json
		t0=$(now)
		boot "$n" "$arch" "$TMP/b1.json"
		t1=$(now)
		boot "$n" "$arch" "$TMP/b2.json"
		t2=$(now)
		python3 - "$TMP" "$n" "$k" "$t0" "$t1" "$t2" <<'PY'
import json, math, sys
tmp, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t0, t1, t2 = map(float, sys.argv[4:7])
a1 = json.load(open(f"{tmp}/b1.json"))["archs"][0]
a2 = json.load(open(f"{tmp}/b2.json"))["archs"][0]
f = a1["findings"][0]
found = f.get("patch")
bound = math.ceil(math.log2(n)) + 1
b1, b2 = a1["bisection"], a2["bisection"]
ok = found == k and f["culprit"]["boots"] <= bound and a2["findings"][0].get("patch") == k
tip = a1["timings"]["total_ms"] / 1000
print(f"{n:<3} {a1['arch']:<7} {found!s:<5} {b1['probes']:<6} {f['culprit']['boots']:<5} "
      f"{bound:<5} {b1['base_boots']}/{b2['base_boots']:<3} {tip:<6.1f} "
      f"{b1['base_ms'] / 1000:<7.1f} {b2['base_ms'] / 1000:<7.1f} {b1['probes_ms'] / 1000:<8.1f} "
      f"{t1 - t0:<6.1f} {t2 - t1:<6.1f}")
sys.exit(0 if ok else 1)
PY
	done
done

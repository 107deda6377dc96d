#!/bin/sh
# Benchmark the boot stage's confirmation and bisection (issue 41): the
# fixture series of tests/t0614-boot-bisect.t (n patches, patch k adds
# WARN_ON_ONCE(1) to madvise_populate(), which the madv_populate
# kselftest reaches; the others change what the small profile does not
# compile), built by `lorebot build` (which keeps every patch's image,
# as in the daemon), then booted twice by `lorebot boot --tests
# madv_populate`: the first run confirms on the base what the cache of
# the base's runs lacks, the second finds it warm.  Per series and arch:
# the patch named, the probes and boots of the series' kernels (the
# bound is ceil(log2 n) + 1), the base's boots, and the wall clock of
# each run.  The same commits as the test's: their kernels are shared.
# usage: bench/bisect.sh [ARCHS]   (default x86_64; e.g. x86_64,arm64,riscv)
set -eu
cd "$(dirname "$0")/.."
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
ARCHS=${1:-x86_64}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export GIT_AUTHOR_NAME="lorebot test" GIT_AUTHOR_EMAIL=test@lorebot.invalid
export GIT_COMMITTER_NAME="lorebot test" GIT_COMMITTER_EMAIL=test@lorebot.invalid
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

mm=$(ci/mm-tree.sh)
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
	git -C "$R" checkout -q -b "$1" mm-new
	i=1
	while [ "$i" -le "$2" ]; do
		if [ "$i" = "$3" ]; then
			git -C "$R" apply tests/fixtures/boot/warn-madvise-populate.patch
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

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "lorebot: $(git rev-parse --short HEAD), boot.confirm $("$LOREBOT" config --get boot.confirm)"
printf '%-5s %-7s %-5s %-7s %-6s %-5s %-5s %-10s %-9s %-9s %s\n' series arch found probes boots bound base1 build_s boot1_s boot2_s base2
for spec in 2:2 5:2 12:9; do
	n=${spec%:*} k=${spec#*:}
	series "s$n" "$n" "$k"
	for arch in $(echo "$ARCHS" | tr ',' ' '); do
		t0=$(now)
		"$LOREBOT" build --repo "$R" --series "s$n" --arch "$arch" --json \
			>"$TMP/build.json" 2>"$TMP/build.err" ||
			{ cat "$TMP/build.err" >&2; exit 1; }
		t1=$(now)
		rc=0
		"$LOREBOT" boot --repo "$R" --series "s$n" --arch "$arch" --tests madv_populate \
			--json >"$TMP/b1.json" 2>"$TMP/b1.err" || rc=$?
		t2=$(now)
		[ "$rc" = 1 ] || { cat "$TMP/b1.err" >&2; echo "boot exited $rc, not 1" >&2; exit 1; }
		rc=0
		"$LOREBOT" boot --repo "$R" --series "s$n" --arch "$arch" --tests madv_populate \
			--json >"$TMP/b2.json" 2>"$TMP/b2.err" || rc=$?
		t3=$(now)
		[ "$rc" = 1 ] || { cat "$TMP/b2.err" >&2; echo "boot exited $rc, not 1" >&2; exit 1; }
		python3 - "$TMP" "$n" "$k" "$t0" "$t1" "$t2" "$t3" <<'PY'
import json, math, sys
tmp, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t0, t1, t2, t3 = map(float, sys.argv[4:8])
a1 = json.load(open(f"{tmp}/b1.json"))["archs"][0]
a2 = json.load(open(f"{tmp}/b2.json"))["archs"][0]
f = a1["findings"][0]
found = f.get("patch")
bound = math.ceil(math.log2(n)) + 1
b = a1["bisection"]
ok = found == k and f["culprit"]["boots"] <= bound and a2["findings"][0].get("patch") == k
print(f"{n:<5} {a1['arch']:<7} {found!s:<5} {b['probes']:<7} {f['culprit']['boots']:<6} "
      f"{bound:<5} {b['base_boots']:<5} {t1 - t0:<10.1f} {t2 - t1:<9.1f} {t3 - t2:<9.1f} "
      f"{a2['bisection']['base_boots']}")
sys.exit(0 if ok else 1)
PY
	done
done

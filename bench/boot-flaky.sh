#!/bin/sh
# Benchmark the boot stage's confirmation on real kernels (issue 41): the
# series of tests/t0615-boot-flaky.t, on a base whose mlock2-tests fails
# about one run in three (a getrandom(2) draw in the guest), each put
# through the whole of lorebot boot RUNS times (20):
#   - fail-map-fixed-noreplace, which breaks map_fixed_noreplace on every
#     run, booted with mlock2-tests and map_fixed_noreplace: the break
#     must be reported every time, mlock2-tests never;
#   - doc-mm-index, a harmless series, booted with mlock2-tests: never
#     reported.
# Each run on a base nobody booted before (unless SHARED=1): a word of its
# own on the kernel command line keys the base's cached console log and
# runs, so that the base is booted and run again for every run, and the
# cache cannot make the RUNS runs one; with SHARED=1 the runs share one
# base cache, as series on one base do in lorebot (the first failure the
# base shows is then every later run's).  Per series: the runs that
# reported the break and the flaky test, how the flaky test came out on
# the tip, the boots of the tip and of the base, and the seconds of a
# run.  What the runs left in the machine's base cache is removed.
# First, how flaky the base's mlock2-tests is: one boot of the base with
# it run RATE times (300), lorebot boot --runs.
# usage: bench/boot-flaky.sh [RUNS [RATE]]   (the first run on a machine
# builds the flaky base for riscv: minutes)
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
if bench_tiny; then
	bench_skip "every run" "kernels are built and booted in minutes, not in the tiny mode"
	exit 0
fi
RUNS=${1:-20}
RATE=${2:-300}
A=riscv
TMP=$(mktemp -d)
chmod go+rx "$TMP"	# build.user reads the initramfs in the work directories
WORD=lorebot.bench=$$.$(date +%s)
BASES=
forget() {
	[ -z "$BASES" ] && return 0
	for l in $(grep -lF -- "$WORD" "$BASES"/*/*console.log 2>/dev/null); do
		rm -rf "${l%/*}" "${l%/*}.lock"
	done
}
trap 'forget; rm -rf "$TMP"' EXIT
export GIT_AUTHOR_NAME="lorebot test" GIT_AUTHOR_EMAIL=test@lorebot.invalid
export GIT_COMMITTER_NAME="lorebot test" GIT_COMMITTER_EMAIL=test@lorebot.invalid
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

# the repository as t0615 makes it (tests/boot-lib.sh)
FIXTURES=$SRC/tests/fixtures
mm_repo() {
	ci/mm-tree.sh
}
skip_all() {
	bench_fail "$*"
}
. tests/boot-lib.sh
boot_repo flaky-mlock2 || bench_fail "cannot commit the fixtures"
R=$TMP/repo
git -C "$R" update-ref refs/heads/mm-new flaky-mlock2
boot_patch mm-new doc-mm-index && boot_patch mm-new fail-map-fixed-noreplace ||
	bench_fail "cannot commit the fixtures"

now() {
	date +%s.%N
}

# boot SERIES TESTS I: one run of the stage, its JSON in $TMP/SERIES.I.json
# and its seconds appended to $TMP/SERIES.s (exit 0 or 1: a finding)
boot() {
	t0=$(now)
	bench_run -s 0,1 -o "$TMP/$1.$3.json" -e "$TMP/$1.$3.err" -- "$LOREBOT" boot \
		--repo "$R" --series "$1" --arch "$A" --tests "$2" \
		--cmdline "$WORD.$(if [ -n "${SHARED:-}" ]; then echo shared; else echo "$3"; fi)" \
		--workdir "$TMP/w" --json
	echo "$(now) $t0" | awk '{ printf "%.1f\n", $1 - $2 }' >>"$TMP/$1.s"
	[ -n "$BASES" ] || BASES=$(python3 -c "import json, os, sys
a = json.load(open(sys.argv[1]))['archs'][0]
print(os.path.dirname(os.path.dirname(a['base']['console_log'])))" "$TMP/$1.$3.json")
}

bench_header
if [ -n "${SHARED:-}" ]; then
	how="one base cache shared by the runs"
else
	how="a base of its own for each run"
fi
echo "lorebot boot on $A, $RUNS runs per series, boot.confirm $("$LOREBOT" config --get boot.confirm 2>/dev/null || echo 5), $how"
t0=$(now)
bench_run -o "$TMP/rate.json" -e "$TMP/rate.err" -- "$LOREBOT" boot --repo "$R" \
	--series mm-new --arch "$A" --tests mlock2-tests --runs "$RATE" --workdir "$TMP/w" --json
python3 - "$TMP/rate.json" "$(now)" "$t0" <<'PY' || bench_fail "the base's runs of mlock2-tests"
import json, sys
a = json.load(open(sys.argv[1]))["archs"][0]
t = a["tests"][0]
print(f"the base's mlock2-tests in one boot: failed in {t['fails']} of {t['runs']} runs "
      f"({t['fails'] / t['runs']:.1%}); {float(sys.argv[2]) - float(sys.argv[3]):.1f} s, "
      f"{t['ms'] / t['runs']:.0f} ms a run")
sys.exit(0 if t["runs"] > 0 else 1)
PY
i=1
while [ "$i" -le "$RUNS" ]; do
	boot fail-map-fixed-noreplace mlock2-tests,map_fixed_noreplace "$i"
	boot doc-mm-index mlock2-tests "$i"
	i=$((i + 1))
done
python3 - "$TMP" "$RUNS" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])

def arch(series, i):
    return json.load(open(f"{tmp}/{series}.{i}.json"))["archs"][0]

def reported(a, test):
    return any(f.get("test") == "mm/" + test for f in a["findings"])

def flaky_way(a):
    t = [t for t in a["tests"] if t["name"] == "mm/mlock2-tests"][0]
    if any(f.get("test") == "mm/mlock2-tests" for f in a["flaky"]):
        return "flaky against the base"
    return {"pass": "passed", "flaky": "flaky on the tip"}.get(t["result"], t["result"])

print("| series | runs | break reported | mlock2-tests reported | mlock2-tests on the tip | tip boots | base boots | s per run (median, max) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for series, brk in (("fail-map-fixed-noreplace", True), ("doc-mm-index", False)):
    a = [arch(series, i) for i in range(1, runs + 1)]
    ways = {}
    for x in a:
        w = flaky_way(x)
        ways[w] = ways.get(w, 0) + 1
    secs = [float(l) for l in open(f"{tmp}/{series}.s")]
    tip = sum(x["bisection"]["boots"] for x in a)
    base = sum(x["bisection"]["base_boots"] for x in a)
    # the base's boot of the test list, when the cache did not have it
    base += sum(1 for x in a if not x["base"]["cached"])
    print(f"| {series} | {runs} | "
          f"{sum(reported(x, 'map_fixed_noreplace') for x in a) if brk else '-'} | "
          f"{sum(reported(x, 'mlock2-tests') for x in a)} | "
          f"{', '.join(f'{w} {n}' for w, n in sorted(ways.items()))} | {tip} | {base} | "
          f"{statistics.median(secs):.1f}, {max(secs):.1f} |")
PY

#!/bin/sh
# A flaky base and a deterministic break, on real kernels (issue 41).
#
# The base is mm-new with flaky-mlock2: mlock2-tests fails about one run
# in three, on a getrandom(2) draw in the guest (each run draws anew;
# nothing is scripted per run).  On it, doc-mm-index, a harmless series,
# and fail-map-fixed-noreplace, which breaks map_fixed_noreplace on every
# run.  The boot stage must never report the flaky test, and must always
# report the break.
#
# 20 runs each, over runs of the real guest: one boot per kernel and test
# with --runs (60 runs of mlock2-tests on the base and on the harmless
# tip, 200 of map_fixed_noreplace on the base and 100 on the break's
# tip), then 20 decisions of the stage's rule over those runs in order
# (tests/unit/t-bisect.c's replay: the tip's boot, its reruns while it
# fails, the base's boot, the base's runs the candidate needs,
# bisect_confirm()).  Independent: each decision takes runs no other
# decision took, and has a base cache of its own ("fresh"), as a series
# on a base nobody booted before: the cache cannot make the 20 one; the
# flaky 20 are decided again with one shared cache, as lorebot keeps it.
# Runs of one boot are as independent as separate boots for this test
# (each run draws anew; nothing carries over); a real flaky test might
# carry state from run to run, which this does not model.  The 20
# decisions are the rule (ci/bisect.c) in the stage's order of runs as
# t-bisect.c follows it, not the glue of ci/bisect-boot.c (what is new,
# the base's cached runs, what moves to "flaky"): whole runs of lorebot
# boot check that, each on a base nobody booted before (its boot
# parameters carry a word of their own, which keys the base's cached
# runs): the break series twice with both tests, the harmless one once
# with mlock2-tests.  bench/boot-flaky.sh runs the whole stage 20 times
# on each (bench/README.md has its figures).
#
# Cost: riscv only (the cheapest guest to boot); 12 boots, 4 of them
# with --runs (420 runs).  Warm, the kernels built: 50-53 s of CPU, 92-115
# s of wall at load 7-9.  Cold, the first run on a machine: 258 s of CPU,
# 586 s of wall at load 13-16, most of it the flaky base's own build
# directory (its checkout, and its build from ccache: 160 s) and the two
# series' kernels.  What this test's bases left in the machine's cache is
# removed at its end.
# schedule: last 1.5 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/boot-lib.sh"
boot_need_tools git make qemu-system-riscv64 riscv64-linux-gnu-gcc bwrap
UNIT=${UNIT_DIR:-$(dirname "$LOREBOT")/tests/unit}
[ -x "$UNIT/t-bisect" ] || skip_all "no $UNIT/t-bisect (make unit)"
boot_repo flaky-mlock2
R=$TMP/repo
A=riscv
chmod go+rx "$TMP"	# build.user reads the initramfs in the work directories
git -C "$R" update-ref refs/heads/mm-new flaky-mlock2
boot_patch mm-new doc-mm-index
boot_patch mm-new fail-map-fixed-noreplace
# the word of this run's own bases (see above)
WORD=lorebot.t0615=$$.$(date +%s)
# a riscv guest that hangs before its kernel prints (2 boots of 100 at load
# 9, bench/README.md) boots again after the boot's time limit: 2 minutes,
# 4 times the longest boot here at that load, not boot.timeout's 5
TO=2m

# runs SERIES TEST N: boot SERIES's tip alone with TEST run N times;
# prints the runs in order, p passed, F failed
# (its exit status: lorebot boot's)
runs() {
	lorebot boot --repo "$R" --series "$1" --arch "$A" --tests "$2" \
		--timeout $TO --runs "$3" --workdir "$TMP/w-$1-$2" --json >"$TMP/$1-$2.json" \
		2>"$TMP/$1-$2.err"
	_rc=$?
	sed -n "s/^# lorebot: exit $2 attempt [0-9]* status \([0-9]*\).*/\1/p" \
		"$TMP/w-$1-$2/tip-$A.console.log" | sed 's/^0$/p/; s/^[0-9]*$/F/' | tr -d '\n'
	return $_rc
}

# replay TIP BASE [shared]: 20 decisions over those runs
replay() {
	{ echo "tip $1"; echo "base $2"; [ "${3:-}" = shared ] || echo fresh; } >"$TMP/replay"
	LOREBOT_BISECT_REPLAY=$TMP/replay "$UNIT/t-bisect"
}

count() {
	printf '%s' "$1" | tr -cd "$2" | wc -c
}

# the flaky test: really intermittent in the guest, on the base and on the tip
base_m=$(runs mm-new mlock2-tests 60)
is "$?" 0 "the base booted with mlock2-tests run 60 times"
tip_m=$(runs doc-mm-index mlock2-tests 60)
is "$?" 0 "the harmless series' tip too"
echo "# base: $base_m"
echo "# tip:  $tip_m"
is "$(json "$TMP/mm-new-mlock2-tests.json" "d['archs'][0]['tests'][0]['runs']")" 60 \
	"60 runs on the base"
is "$(json "$TMP/mm-new-mlock2-tests.json" "d['archs'][0]['tests'][0]['fails']")" \
	"$(count "$base_m" F)" "the JSON's failed runs are the console's"
for s in base_m tip_m; do
	eval "r=\$$s"
	# 60 runs at 1 in 3: 20 expected (sd 3.7); outside 5-38 once in 10^6
	f=$(count "$r" F)
	ok "$s: failed in $f of 60 runs: about one in three" \
		test "${#r}" = 60 -a "$f" -ge 5 -a "$f" -le 38
done
is "$(json "$TMP/mm-new-mlock2-tests.json" "d['archs'][0]['tests'][0]['result']")" flaky \
	"lorebot boot --runs calls it flaky"
out=$(replay "$tip_m" "$base_m")
echo "# $out"
like "$out" "^replay: 20 series, 0 reported; " \
	"20 runs of the decision, each on a base of its own: never reported"
out=$(replay "$tip_m" "$base_m" shared)
echo "# $out"
like "$out" "^replay: 20 series, 0 reported; " "20 runs with one base cache: never reported"

# the break: every run on the tip, none on the base
base_f=$(runs mm-new map_fixed_noreplace 200)
is "$?" 0 "the base booted with map_fixed_noreplace run 200 times"
tip_f=$(runs fail-map-fixed-noreplace map_fixed_noreplace 100)
is "$?" 1 "the break's tip with it run 100 times (exit 1: a failure)"
is "${#base_f} $(count "$base_f" F)" "200 0" "it passed in 200 of 200 runs on the base"
is "${#tip_f} $(count "$tip_f" F)" "100 100" "it failed in 100 of 100 runs on the tip"
out=$(replay "$tip_f" "$base_f")
echo "# $out"
like "$out" "^replay: 20 series, 20 reported; .*runs used: tip 100 of 100, base 200 of 200" \
	"20 runs of the decision, each on a base of its own: reported in 20 of 20"

# forget_bases DIR: remove what this run's bases left in DIR, the
# machine's cache of the arch's bases (their word is in the kernel
# command line of their console logs)
forget_bases() {
	for _l in $(grep -lF -- "$WORD" "$1"/*/*console.log 2>/dev/null); do
		rm -rf "${_l%/*}" "${_l%/*}.lock"
	done
}

# the stage itself: the break and the flaky test on a base nobody booted
for i in 1 2; do
	lorebot boot --repo "$R" --series fail-map-fixed-noreplace --arch "$A" \
		--tests mlock2-tests,map_fixed_noreplace --cmdline "$WORD.$i" --timeout $TO \
		--workdir "$TMP/w-$i" --json >"$TMP/b$i.json" 2>"$TMP/b$i.err"
	is "$?" 1 "run $i: lorebot boot exits 1"
	if [ "$i" = 1 ]; then
		d=$(arch_json "$TMP/b1.json" $A "a['base']['console_log']")
		cleanup_add "forget_bases '${d%/*/*}'"
	fi
	is "$(arch_json "$TMP/b$i.json" $A "[f['test'] for f in a['findings']]")" \
		"['mm/map_fixed_noreplace']" "run $i: the break is the one finding"
	is "$(arch_json "$TMP/b$i.json" $A "a['findings'][0]['confirm']['tip']")" \
		"{'runs': 5, 'bad': 5}" "run $i: in 5 of 5 runs on the tip"
	is "$(arch_json "$TMP/b$i.json" $A "a['findings'][0]['confirm']['base']")" \
		"{'runs': 10, 'bad': 0}" "run $i: in none of 10 on a base booted for it"
	is "$(arch_json "$TMP/b$i.json" $A "a['bisection']['base_boots']")" 1 \
		"run $i: the base booted again for them"
	like "$(arch_json "$TMP/b$i.json" $A \
		"[t['result'] for t in a['tests'] if t['name'] == 'mm/mlock2-tests'][0]")" \
		"^(pass|flaky)$" "run $i: mlock2-tests passed, or is flaky"
	is "$(arch_json "$TMP/b$i.json" $A "[t['name'] for t in a['tests'] if t['new']]")" \
		"['mm/map_fixed_noreplace']" "run $i: only the break is new"
done
lorebot boot --repo "$R" --series doc-mm-index --arch "$A" --tests mlock2-tests \
	--cmdline "$WORD.3" --timeout $TO --workdir "$TMP/w-3" --json >"$TMP/b3.json" 2>"$TMP/b3.err"
is "$?" 0 "the harmless series: lorebot boot exits 0"
is "$(arch_json "$TMP/b3.json" $A "a['status']")" ok "the harmless series: ok"
is "$(arch_json "$TMP/b3.json" $A "a['findings']")" "[]" "no finding"
t=$(arch_json "$TMP/b3.json" $A "(a['tests'][0]['result'], len(a['flaky']))")
like "$t" "^\('(pass|flaky)', [01]\)$" "mlock2-tests passed, or is counted flaky ($t)"
done_testing

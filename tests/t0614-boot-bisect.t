#!/bin/sh
# The patch that broke it, on real kernels.  Series of 12, 5 and 2
# patches where patch k adds WARN_ON_ONCE(1) to madvise_populate(), which
# the madv_populate kselftest reaches, and the others change what the
# small profile does not compile (documentation, mm/hmm.c): the boot
# stage confirms the warning (every run of boot.confirm on the tip, none
# of twice as many on the base), bisects over the series' own kernels and
# names patch k, in at most ceil(log2 n) + 1 boots of the series; the
# reply names it too, and lorebot check --boot puts it on the patch.  A
# patch that only adds comments, but moves __LINE__ past a
# WARN_ON_ONCE(__LINE__ > N) the patch before it added, is found and
# marked suspect, not blamed.
#
# Cost, kept small on 2 cores: one test (madv_populate), one arch per
# series (12 on x86_64, 5 on arm64, 2 on riscv, the comment-only one on
# x86_64), kernels built only for the patches a bisection boots (12
# builds in all, each recompiling a few objects; ccache has the base's),
# the base's boots and runs cached per machine.  The 2-patch series goes
# through lorebot check --boot first, whose build stage keeps every
# patch's image: lorebot boot then boots those.  bench/README.md has the
# numbers.  The 20-run checks (a flaky base never blamed, a break always
# found) are tests/t0615-boot-flaky.t's, on real kernels, and
# tests/unit/t-bisect.c's, on simulated runs.
# schedule: last 12 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/boot-lib.sh"
. "$LOREBOT_SRC/tests/report-lib.sh"
boot_need_all
boot_worktree
R=$TMP/repo

# commit SUBJECT N: commit what is changed, at a fixed date (the same
# series gives the same commits, and cached kernels, on every run)
commit() {
	GIT_AUTHOR_DATE="2026-03-01T10:00:$(printf %02d "$2") +0000" \
	GIT_COMMITTER_DATE="2026-03-01T10:00:$(printf %02d "$2") +0000" \
		git -C "$R" commit -q -a -m "$1" -m "Signed-off-by: lorebot test <test@lorebot.invalid>"
}

# series NAME N K: branch NAME on mm-new, N patches, patch K the warning
series() {
	git -C "$R" checkout -q mm-new &&
	git -C "$R" checkout -q -b "$1" mm-new || return 1
	_i=1
	while [ "$_i" -le "$2" ]; do
		if [ "$_i" = "$3" ]; then
			git -C "$R" apply "$FIXTURES/boot/warn-madvise-populate.patch" || return 1
			commit "mm/madvise: warn when populating" "$_i"
		elif [ $((_i % 2)) = 0 ]; then
			echo "Note $_i of the $1 series." >>"$R/Documentation/mm/index.rst"
			commit "Documentation/mm: note $_i" "$_i"
		else
			sed -i "0,/^#include/s//#define HMM_LOREBOT_NOTE_$_i $_i\n&/" "$R/mm/hmm.c"
			commit "mm/hmm: define note $_i" "$_i"
		fi
		_i=$((_i + 1))
	done
}

# check_culprit FILE ARCH K N: the arch of FILE names patch K of N
check_culprit() {
	_f=$1 _a=$2 _k=$3 _n=$4
	is "$(arch_json "$_f" "$_a" "a['status']")" regressions "$_a, $_n patches: regressions"
	is "$(arch_json "$_f" "$_a" "[f['kind'] for f in a['findings']]")" "['kernel-warning']" \
		"$_a, $_n patches: one finding, the warning"
	is "$(arch_json "$_f" "$_a" "a['findings'][0]['patch']")" "$_k" \
		"$_a, $_n patches: on patch $_k"
	is "$(arch_json "$_f" "$_a" "a['findings'][0]['commit']")" \
		"$(git -C "$R" rev-parse "HEAD~$((_n - _k))")" "$_a, $_n patches: its commit"
	is "$(arch_json "$_f" "$_a" "a['findings'][0]['culprit']['subject']")" \
		"mm/madvise: warn when populating" "$_a, $_n patches: its subject"
	is "$(arch_json "$_f" "$_a" "a['findings'][0]['culprit']['suspect']")" False \
		"$_a, $_n patches: not suspect"
	_bound=$(python3 -c "import math; print(math.ceil(math.log2($_n)) + 1)")
	_boots=$(arch_json "$_f" "$_a" "a['findings'][0]['culprit']['boots']")
	ok "$_a, $_n patches: $_boots boots of the series, at most $_bound" \
		test "$_boots" -le "$_bound"
	is "$(arch_json "$_f" "$_a" "a['bisection']['boots']")" "$_boots" \
		"$_a, $_n patches: the arch's boots are the finding's"
	is "$(arch_json "$_f" "$_a" "(a['findings'][0]['confirm']['tip']['runs'], a['findings'][0]['confirm']['tip']['bad'])")" \
		"(5, 5)" "$_a, $_n patches: the warning came in 5 of 5 runs on the tip"
	is "$(arch_json "$_f" "$_a" "a['findings'][0]['confirm']['base']['bad']")" 0 \
		"$_a, $_n patches: never on the base"
	like "$(arch_json "$_f" "$_a" "a['findings'][0]['confirm']['base']['runs']")" \
		"^(1[0-9]|[2-9][0-9])$" "$_a, $_n patches: in at least 10 runs of the base"
	is "$(arch_json "$_f" "$_a" "sorted(set(s['verdict'] for s in a['findings'][0]['culprit']['steps']))")" \
		"$(if [ "$_k" = 1 ] || [ "$_n" = 2 ]; then echo "['good']"; else echo "['bad', 'good']"; fi)" \
		"$_a, $_n patches: every probe was 5 of 5 one way or the other"
	is "$(arch_json "$_f" "$_a" "a['flaky']")" "[]" "$_a, $_n patches: nothing flaky"
}

# 12 patches, patch 9, on x86_64: the probes' kernels are built as needed
series s12 12 9
lorebot boot --repo "$R" --series s12 --arch x86_64 --tests madv_populate --json \
	>"$TMP/b12.json" 2>"$TMP/b12.err"
is "$?" 1 "12 patches: lorebot boot exits 1"
check_culprit "$TMP/b12.json" x86_64 9 12
is "$(arch_json "$TMP/b12.json" x86_64 "[k['patch'] for k in a['bisection']['kernels']]")" \
	"[6, 9, 7, 8]" "12 patches: probes 6, 9, 7, 8"

# 5 patches, patch 2, on arm64
series s5 5 2
lorebot boot --repo "$R" --series s5 --arch arm64 --tests madv_populate --json \
	>"$TMP/b5.json" 2>"$TMP/b5.err"
is "$?" 1 "5 patches: exit 1"
check_culprit "$TMP/b5.json" arm64 2 5

# 2 patches, patch 2, on riscv: lorebot check --boot (it builds every
# patch, keeping their images, and bisects), then lorebot boot on them
series s2 2 2
(cd "$R" && "$LOREBOT" check --boot=riscv --json mm-new..s2) >"$TMP/check.json" 2>"$TMP/check.err"
is "$?" 1 "lorebot check --boot: exit 1"
is "$(json "$TMP/check.json" "[(f['patch'], f['rule']) for f in d['findings'] if f['rule'].startswith('boot')]")" \
	"[(2, 'boot:riscv')]" "lorebot check --boot: the warning is a finding of patch 2"
like "$(json "$TMP/check.json" "[f['message'] for f in d['findings'] if f['rule'].startswith('boot')][0]")" \
	"first bad patch by bisection, 2 boots" "saying how it was found"
lorebot boot --repo "$R" --series s2 --arch riscv --tests madv_populate --json \
	>"$TMP/b2.json" 2>"$TMP/b2.err"
is "$?" 1 "2 patches: exit 1"
check_culprit "$TMP/b2.json" riscv 2 2
is "$(arch_json "$TMP/b2.json" riscv "[k['image'] for k in a['bisection']['kernels']]")" \
	"['kept']" "2 patches: the probe booted the image the build stage kept"
is "$(arch_json "$TMP/b2.json" riscv "a['bisection']['base_boots']")" 0 \
	"riscv: the base's runs of madv_populate came from the cache"

# a comment-only patch that moves __LINE__ past WARN_ON_ONCE(__LINE__ > N)
git -C "$R" checkout -q -b suspect mm-new
L=$(grep -n 'long pages;' "$R/mm/madvise.c" | head -1 | cut -d: -f1)
sed -i "${L}s/\$/\n\n\tWARN_ON_ONCE(__LINE__ > $((L + 6)));/" "$R/mm/madvise.c"
commit "mm/madvise: warn about late lines" 1
sed -i "0,/^#include/s//\/*\n * one\n * two\n * three\n * four\n * five\n *\/\n&/" "$R/mm/madvise.c"
commit "mm/madvise: say more at the top" 2
lorebot boot --repo "$R" --series suspect --arch x86_64 --tests madv_populate --json \
	>"$TMP/bs.json" 2>"$TMP/bs.err"
is "$?" 1 "comment-only culprit: exit 1 (the warning is new)"
is "$(arch_json "$TMP/bs.json" x86_64 "a['findings'][0]['culprit']['patch']")" 2 \
	"bisection points at patch 2"
is "$(arch_json "$TMP/bs.json" x86_64 "a['findings'][0]['culprit']['suspect']")" True \
	"which only adds comments: suspect"
is "$(arch_json "$TMP/bs.json" x86_64 "'patch' in a['findings'][0]")" False \
	"and not blamed: the finding names no patch"
is "$(arch_json "$TMP/bs.json" x86_64 "a['bisection']['base_boots']")" 0 \
	"x86_64: the base's runs came from the cache (the 12-patch series filled it)"

# the reply: each series as its mails, these results recorded: it names
# patch k, for the arch that ran it
report_conf
# reply_names NAME N K ARCH FILE: the reply to version NAME (N patches)
# with FILE as its boot result on ARCH names patch K
reply_names() {
	git -C "$R" format-patch -q --cover-letter --thread --to=linux-mm@kvack.org \
		-o "$TMP/$1" "mm-new..$1"
	# a title of its own: three series, not three versions of one
	sed -i "s|\*\*\* SUBJECT HERE \*\*\*|mm: the $1 series|" "$TMP/$1/0000-cover-letter.patch"
	cat "$TMP/$1"/*.patch >"$TMP/$1.mbox"
	fill_db "$TMP/$1.mbox"
	_v=$(sed -n 's/^Message-I[dD]: <\(.*\)>$/\1/p' "$TMP/$1/0000-cover-letter.patch")
	python3 - "$FIXTURES/results/apply-one.json" "$FIXTURES/results/build-003.json" \
		"$TMP/$1" "$(git -C "$R" rev-parse mm-new)" "$2" "$4" <<'EOF'
import json, sys
apply, build, out, sha, n, arch = sys.argv[1:]
d = json.load(open(apply))
d['base']['sha'] = d['attempts'][0]['sha'] = sha
p = d['patches'][0]
d['patches'] = [dict(p, n=i, total=int(n), subject='patch %d' % i) for i in range(1, int(n) + 1)]
json.dump(d, open(out + '/apply.json', 'w'))
d = json.load(open(build))
d['archs'] = [a for a in d['archs'] if a['arch'] == arch]
json.dump(d, open(out + '/build.json', 'w'))
json.dump({'findings': []}, open(out + '/check.json', 'w'))
EOF
	record "$_v" apply "$TMP/$1/apply.json"
	record "$_v" check "$TMP/$1/check.json"
	record "$_v" build "$TMP/$1/build.json"
	record "$_v" boot "$5"
	"$LOREBOT" --db "$DB" --config "$CONF" reply --series "$_v" --dry-run --arch "$4" \
		--repo "$R" >"$TMP/$1.dry" 2>"$TMP/$1.dry.err"
	is "$?" 0 "$1: reply --dry-run exits 0"
	like "$(cat "$TMP/$1.dry")" "^$4 \(" "$1: about $4"
	like "$(cat "$TMP/$1.dry")" "first bad patch: $3/$2 \(\"mm/madvise: warn when populating\"\)" \
		"$1: the reply names patch $3/$2"
	like "$(cat "$TMP/$1.dry")" "confirmed: in 5 of 5 runs on the tip, 0 of 1[0-9] on the base" \
		"$1: and how sure"
	is "$(grep -c '^>> kernel-warning: ' "$TMP/$1.dry")" 1 "$1: the warning, once"
}
reply_names s12 12 9 x86_64 "$TMP/b12.json"
reply_names s5 5 2 arm64 "$TMP/b5.json"
reply_names s2 2 2 riscv "$TMP/b2.json"
done_testing

#!/bin/sh
# lorebot build with real kernel builds (small profile, the 6.12 stand-in):
# a prototype change that forgets one arch, and a series that breaks
# bisection.  The base build directories are shared with the other build
# tests (built once per machine, minutes each when the cache is cold).
# schedule: last 2.9 (builds or boots on the base build directories; minutes)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" direct-map "$FIXTURES/build/direct-map"
apply_series "$R" bisect "$FIXTURES/build/bisect"
# build.ccachewrite = base, the default, for the first build (checked
# below); the others add their objects to the shared ccache, so that a
# warm machine does not compile them again
build_config "$TMP/bot.conf" build.ccachewrite base
build_config "$TMP/warm.conf"

# --- a prototype change made by x86 and arm64, forgotten by riscv
lorebot --config "$TMP/bot.conf" build --repo "$R" --series direct-map \
	--log-dir "$TMP/logs" --json >"$TMP/hook.json" 2>"$TMP/hook.err"
is "$?" 1 "direct-map: exit 1 (errors)"
J=$TMP/hook.json
A="{a['arch']: a for a in d['archs']}"
is "$(json $J "[a['arch'] for a in d['archs']]")" "['x86_64', 'arm64', 'riscv']" \
	"all three archs by default"
# the small profile compiles half of the series' changed lines (issue 39):
# x86_64 and arm64 build, but too little of the change to say ok
is "$(json $J "[a['status'] for a in d['archs']]")" "['partial', 'partial', 'errors']" \
	"x86_64 and arm64 build but compiled half the change (partial), riscv fails"
is "$(json $J "[a['coverage']['percent'] for a in d['archs']][:2]")" "[50.0, 50.0]" \
	"... 50% of the changed lines on each"
is "$(json $J "[a['infra'] for a in d['archs']]")" "[None, None, None]" \
	"no infrastructure error"
new="[f for f in $A['riscv']['findings'] if f['new']]"
is "$(json $J "len($new) >= 1")" True "riscv: new findings"
is "$(json $J "sorted(set((f['patch'], f['severity'], f['file']) for f in $new))")" \
	"[(2, 'error', 'mm/vmalloc.c')]" "errors in mm/vmalloc.c, all of patch 2"
like "$(json $J "$new[0]['message']")" \
	"passing argument 2 of 'set_area_direct_map' from incompatible pointer type" \
	"the compiler's message"
is "$(json $J "$new[0]['option']")" -Wincompatible-pointer-types "its option"
is "$(json $J "$new[0]['line'] > 3000 and $new[0]['column'] > 0")" True "with line and column"
is "$(json $J "$new[0]['commit']")" "$(git -C "$R" rev-parse direct-map)" "the commit of patch 2"
is "$(json $J "[p['status'] for p in $A['riscv']['patches']]")" "['ok', 'errors']" \
	"riscv: patch 1 ok, patch 2 errors"
for a in x86_64 arm64; do
	is "$(json $J "[f for f in $A['$a']['findings'] if f['new']]")" "[]" "$a: nothing new"
	is "$(json $J "[p['status'] for p in $A['$a']['patches']]")" "['ok', 'ok']" \
		"$a: both patches ok"
	img=$(json $J "$A['$a']['image']")
	ok "$a: the image is kept with the logs" test -s "$img"
	is "$(json $J "$A['$a']['patches'][1]['w1_files']")" 2 \
		"$a: W=1 pass on mm/vmalloc.c and the arch's .c file"
done
is "$(json $J "$A['riscv']['patches'][1]['w1_files']")" 1 "riscv: W=1 pass on mm/vmalloc.c"
# build.ccachewrite = base: a series' build reads the shared ccache and
# adds nothing to it (its objects cannot reach another series' build)
is "$(json $J "sum(p['ccache_writes'] for a in d['archs'] for p in a['patches'])")" 0 \
	"no patch build added to the shared ccache"
is "$(json $J "all(a['patches'][1]['ccache_misses'] + a['patches'][1]['ccache_hits'] > 0 for a in d['archs'])")" True \
	"though patch 2 compiled through ccache on every arch"
is "$(json $J "all(f['new'] == False for a in d['archs'] for f in a['findings'] if f['patch'] == 0)")" \
	True "pre-existing diagnostics are marked so"
ok "logs per patch" test -s "$(json $J "$A['riscv']['patches'][1]['log']")"
grep -q "incompatible pointer type" "$(json $J "$A['riscv']['patches'][1]['log']")"
is "$?" 0 "the riscv log of patch 2 has the error"

# the same build as text, kept beside its JSON in the log directory (what
# the build prints without --json): no second build of the series
cmp -s "$TMP/logs/result.json" "$J"
is "$?" 0 "the log directory keeps the JSON printed"
T=$TMP/logs/result.txt
like "$(cat "$T")" \
	"mm/vmalloc.c:[0-9]+:[0-9]+: error: passing argument 2 of 'set_area_direct_map' from incompatible pointer type \\[-Wincompatible-pointer-types\\] \\[patch 2/2\\]" \
	"text: the error in compiler format with its patch"
reused=$(json $J "'reused' if $A['riscv']['base']['reused'] else 'built'")
like "$(cat "$T")" "riscv: errors \\[base $reused" "text: riscv's status, the base $reused as the JSON says"

# --- patch 1 breaks the build, patch 2 repairs it
lorebot --config "$TMP/warm.conf" build --repo "$R" --series bisect --arch x86_64 \
	--log-dir "$TMP/logs3" --json >"$TMP/bisect.json" 2>"$TMP/bisect.err"
is "$?" 1 "bisect: exit 1"
J=$TMP/bisect.json
X="d['archs'][0]"
is "$(json $J "$X['status']")" errors "status errors"
is "$(json $J "[p['status'] for p in $X['patches']]")" "['errors', 'ok']" \
	"patch 1 fails, patch 2 builds"
new="[f for f in $X['findings'] if f['new']]"
is "$(json $J "sorted(set((f['patch'], f['fixed_by'], f['severity']) for f in $new))")" \
	"[(1, 2, 'error')]" "errors of patch 1, gone with patch 2"
like "$(json $J "' '.join(f['message'] for f in $new)")" "folio_is_lazyfree" \
	"the missing helper is named"
like "$(json $J "$X['bisection'][0]")" "patch 1/2 breaks bisection on x86_64" \
	"patch 1/2 breaks bisection"
is "$(json $J "$X['base']['reused']")" True "base reused"

# --- the build never wrote to its source tree.  The other build tests
# share the directory: it is looked at under its lock, and what it holds
# is this test's only if no other build came in between.
src=$(json $J "$X['src_dir']")
dir=$(json $J "$X['build_dir']")
exec 9>>"$dir.lock"
flock 9
export GIT_INDEX_FILE=$dir/src.index GIT_WORK_TREE=$src
git --git-dir="$R" update-index -q --refresh >/dev/null 2>&1
is "$(git --git-dir="$R" diff-files --name-only 2>&1)" "" \
	"no file of the source tree was changed by kbuild"
is "$(git --git-dir="$R" ls-files --others 2>&1)" "" "and none was added"
if [ "$(sed -n 's/^cur //p' "$dir/state")" = "$(git -C "$R" rev-parse bisect)" ]; then
	is "$(git --git-dir="$R" write-tree)" "$(git -C "$R" rev-parse 'bisect^{tree}')" \
		"the source tree holds the last patch"
else
	skip "another test built in $dir since"
fi
if [ "$(id -u)" = 0 ]; then
	# still under the lock: the next job's open may remove what this one
	# left (ci/objguard.c), the base's objects stay
	is "$(find "$(json $J "$X['obj_dir']")/mm" -name '*.o' ! -user nobody | head -3)" "" \
		"as root, the build ran as the build user: mm/'s objects are nobody's"
	is "$(stat -c %U "$src/Makefile")" root "the source tree is not the build user's"
fi
unset GIT_INDEX_FILE GIT_WORK_TREE
exec 9>&-

done_testing

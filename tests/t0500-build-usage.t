#!/bin/sh
# lorebot build: options, bad input and infrastructure errors that need
# no kernel build (a missing toolchain is found before anything runs)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lib-build.sh"

build_repo "$TMP/repo.git" || { echo "Bail out! no kernel tree"; exit 1; }
R=$TMP/repo.git
apply_series "$R" direct-map "$FIXTURES/build/direct-map"
build_config "$TMP/bot.conf"

run() {
	lorebot --config "$TMP/bot.conf" build "$@" >"$TMP/out" 2>"$TMP/err"
	echo $?
}

is "$(run --repo "$R")" 2 "neither --series nor --range: usage error"
is "$(run --repo "$R" --series direct-map --range mm-new..direct-map)" 2 \
	"both --series and --range: usage error"
is "$(run --repo "$R" --range mm-new..direct-map --base mm-new)" 2 \
	"--base without --series: usage error"
is "$(run --repo "$TMP/nothing" --series direct-map)" 2 "not a repository"
like "$(cat "$TMP/err")" "'$TMP/nothing' is not a git repository" "names the directory"
is "$(run --repo "$R" --series no-such-branch)" 2 "unknown branch"
like "$(cat "$TMP/err")" "'no-such-branch' is not a commit" "names the branch"
is "$(run --repo "$R" --range mm-new..mm-new)" 2 "empty range"
like "$(cat "$TMP/err")" "no commits between" "says there is nothing to build"
is "$(run --repo "$R" --range mm-new)" 2 "a range without .."
is "$(run --repo "$R" --series direct-map --arch sparc)" 2 "unknown architecture"
like "$(cat "$TMP/err")" "unknown architecture 'sparc'" "names it"
is "$(run --repo "$R" --series direct-map --arch riscv --first-arch sparc)" 2 \
	"unknown --first-arch"
like "$(cat "$TMP/err")" "unknown architecture 'sparc'" "names it"
is "$(run --repo "$R" --series direct-map --profile huge)" 2 "unknown profile"
like "$(cat "$TMP/err")" "unknown build profile 'huge'" "names it"
is "$(run --repo "$R" --series direct-map --timeout soon)" 2 "bad duration"

# a merge is not a series
git -C "$R" update-ref refs/heads/merged "$(git -C "$R" commit-tree \
	-p mm-new -p direct-map -m merge "$(git -C "$R" rev-parse 'direct-map^{tree}')")"
is "$(run --repo "$R" --range mm-new..merged)" 2 "a merge in the range"
like "$(cat "$TMP/err")" "contains the merge" "says so"

# a missing cross compiler is an infrastructure error naming the package
build_config "$TMP/nocc.conf" arch.riscv.crosscompile nonexistent-
lorebot --config "$TMP/nocc.conf" build --repo "$R" --series direct-map \
	--arch riscv --json --log-dir "$TMP/logs" >"$TMP/out" 2>"$TMP/err"
is "$?" 3 "missing toolchain: exit 3"
is "$(json "$TMP/out" "d['archs'][0]['status']")" infra "status infra"
like "$(json "$TMP/out" "d['archs'][0]['infra']")" \
	"nonexistent-gcc.*not found.*gcc-riscv64-linux-gnu" "names the Debian package"
is "$(json "$TMP/out" "len(d['archs'][0]['findings'])")" 0 "no findings"
is "$(json "$TMP/out" "[p['status'] for p in d['archs'][0]['patches']]")" \
	"['skipped', 'skipped']" "no patch was built"
is "$(json "$TMP/out" "d['base']")" "$(git -C "$R" rev-parse mm-new)" \
	"--series base: the merge base with mm-new"
is "$(json "$TMP/out" "[p['subject'] for p in d['patches']]")" \
	"['mm/vmalloc: explain why the direct map is reset page by page', 'mm: give set_direct_map_*_noflush() a number of pages']" \
	"the patches, oldest first"
cmp -s "$TMP/logs/result.json" "$TMP/out"
is "$?" 0 "the log directory keeps the JSON printed"

lorebot --config "$TMP/nocc.conf" build --repo "$R" --series direct-map \
	--arch riscv --log-dir "$TMP/logs" >"$TMP/out" 2>"$TMP/err"
like "$(cat "$TMP/out")" "^riscv: infra \(infrastructure, not the series" "text: infra, not the series"
cmp -s "$TMP/logs/result.txt" "$TMP/out"
is "$?" 0 "... and the text printed"

ok "help" lorebot build --help
like "$(lorebot build --help)" "EXIT STATUS" "help has the exit status"

done_testing

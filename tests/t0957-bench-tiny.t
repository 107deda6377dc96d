#!/bin/sh
# Every benchmark of bench/ in its tiny mode (BENCH_TINY=1, bench/lib.sh:
# small inputs, one run), so that a broken harness is seen before a
# figure is taken with it: each exits 0 and prints its figures, and says
# what its tiny mode leaves out ("skipped: what: why"; those that build
# or boot kernels leave that out).  And each fails loudly when lorebot
# fails: with a lorebot that exits 3 having done nothing (as the mail
# parser's jail did under valgrind, issue 46), each benchmark that runs
# lorebot in its tiny mode exits non-zero with "FAILED" and the reason.
# The figures of a tiny mode mean nothing; bench/README.md has the real.
# schedule: middle 10 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
S=$LOREBOT_SRC/bench

for t in valgrind callgrind_control b4 sqlite3 public-inbox-httpd; do
	command -v "$t" >/dev/null || skip_all "$t is not installed"
done
# the benchmarks measure the build a user runs: under make test $LOREBOT
# is the sanitizer build, which valgrind (instruction counts) cannot run
# (its runtime linked in: the symbol is in the file, not in nm -D)
if grep -q __asan_init "$LOREBOT" 2>/dev/null; then
	[ -x "$LOREBOT_SRC/build/lorebot" ] ||
		skip_all "$LOREBOT is a sanitizer build and there is no build/lorebot"
	LOREBOT=$LOREBOT_SRC/build/lorebot
fi
export LOREBOT
export BENCH_TINY=1 BENCH_DIR=$TMP/bench BENCH_OUT=$TMP/apply LOREBOT_CACHE
LOREBOT_CACHE=$(dirname "$("$LOREBOT_SRC/ci/mm-tree.sh")")
mkdir -p "$BENCH_DIR"

# bench/current.sh runs the benchmarks of the README's table and reads
# their output: in its tiny mode first, then the others, in the order of
# bench/run.sh (what others read is made first)
table="series.sh check.sh devcheck.sh apply.sh poll.sh dash-load.sh lore.sh"
benches=$(cd "$S" && ls ./*.sh | sed 's|^\./||' |
	grep -v '^\(run\|lib\|serve-lib\|current\)\.sh$')

# args BENCH: its arguments in the test (a directory of its own, a binary)
args() {
	case $1 in
	series.sh | replies.sh) echo "$TMP/out-${1%.sh}" ;;
	sigterm.sh) echo "$LOREBOT" ;;
	esac
}

/usr/bin/time -f '%U %S' -o "$TMP/current.cpu" "$S/current.sh" "$TMP/current" \
	>"$TMP/current.out" 2>"$TMP/current.err"
is "$?" 0 "current.sh: the table's benchmarks run and their figures are read"
diag "$(tail -3 "$TMP/current.err")"
ok "current.sh: a row for each figure ($(grep -c '^| ' "$TMP/current.out") lines)" \
	test "$(grep -c '^| ' "$TMP/current.out")" -ge 22
grep -- '| - |\|  |' "$TMP/current.out" | grep -v '| --- |' | while read -r l; do diag "$l"; done
unlike "$(grep '^| ' "$TMP/current.out" | cut -d'|' -f3)" '^ *( s| M| ms|s CPU)? *$' \
	"current.sh: every row has lorebot's figure"
diag "current.sh: $(awk '{ print $1 + $2 }' "$TMP/current.cpu") s of CPU"
skipped=
for b in $benches; do
	case " $table " in
	*" $b "*)
		cp "$TMP/current/${b%.sh}.log" "$TMP/$b.out"
		like "$(cat "$TMP/$b.out")" "[0-9]" "$b (in current.sh): prints its figures"
		;;
	*)
		# shellcheck disable=SC2046
		/usr/bin/time -f '%U %S' -o "$TMP/$b.cpu" "$S/$b" $(args "$b") >"$TMP/$b.out" \
			2>"$TMP/$b.err"
		rc=$?
		is "$rc" 0 "$b: its tiny mode runs ($(awk '{ print $1 + $2 }' "$TMP/$b.cpu") s of CPU)"
		[ "$rc" = 0 ] || diag "$(tail -5 "$TMP/$b.err")"
		# a figure, or a skip that says why
		like "$(cat "$TMP/$b.out")" "[0-9]|skipped: .*: " \
			"$b: prints its figures or what it skipped"
		;;
	esac
	s=$(grep -h 'skipped: ' "$TMP/$b.out")
	[ -z "$s" ] || skipped="$skipped
$s"
done
diag "what the tiny modes left out:$skipped"

# a lorebot that fails as the jail did under valgrind
mkdir -p "$TMP/broken"
cat >"$TMP/broken/lorebot" <<EOF
#!/bin/sh
case " \$* " in
*" --version "* | *" version "*) exec "$LOREBOT" "\$@" ;;
esac
echo "lorebot: cannot parse mail in a jail here: cannot make the jail (the broken stand-in of t0957)" >&2
exit 3
EOF
chmod +x "$TMP/broken/lorebot"
for b in $benches; do
	cat "$S/$b" "$S/${b%.sh}.py" 2>/dev/null | grep -q 'LOREBOT\|"\$1" --db' || continue
	grep -q "skipped: every" "$TMP/$b.out" && continue
	arg=$(args "$b")
	[ "$b" != sigterm.sh ] || arg=$TMP/broken/lorebot
	# shellcheck disable=SC2086
	LOREBOT=$TMP/broken/lorebot "$S/$b" $arg >"$TMP/$b.broken.out" 2>"$TMP/$b.broken.err"
	rc=$?
	ok "$b: fails when lorebot fails (exit $rc)" test "$rc" != 0
	like "$(cat "$TMP/$b.broken.err")" "FAILED: .*(jail here|exited 3)" \
		"$b: and says why"
done
done_testing

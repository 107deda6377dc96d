#!/bin/sh
# A short libFuzzer run of the mail, mbox, subject, console and diff parsers (ASan+UBSan,
# leak detection).  The run is reproducible: a fixed seed (LOREBOT_FUZZ_SEED, 1)
# and a fixed number of inputs per target (the table below, about 10 s each on
# a quiet machine; LOREBOT_FUZZ_RUNS overrides them all), so that a
# test run finds what the last one found and a new find is a change of the
# code, not of the machine's speed.  Exploring is `make fuzz` and a target
# run by hand for as long as one likes (doc/technical/tests.md); what that
# finds becomes a seed in tests/fuzz/corpus/.  LOREBOT_FUZZ_SECONDS (60) bounds
# the time per target on a slow machine.  The mail target runs without its
# git mailinfo differential here (LOREBOT_FUZZ_NO_GIT; LOREBOT_FUZZ_GIT=1
# puts it back): any change of the code moves where the fuzzer goes, and
# a new undocumented difference from git is a find for the mail parser's
# author, not a failure of whatever change moved the fuzzer.  The
# differential itself runs on every committed seed in t0105.  An input
# that runs longer than LOREBOT_FUZZ_TIMEOUT seconds (60) is a hang: the mail
# target runs git mailinfo for each input, which on a loaded CI machine (three
# kernel builds beside this test) has taken over 10 s for one ordinary seed.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

FUZZ=${LOREBOT_FUZZ_DIR:-$LOREBOT_SRC/build-fuzz}
secs=${LOREBOT_FUZZ_SECONDS:-60}
seed=${LOREBOT_FUZZ_SEED:-1}
hang=${LOREBOT_FUZZ_TIMEOUT:-60}
[ -x "$FUZZ/fuzz-mail" ] || skip_all "fuzzers not built (make fuzz)"

mkdir -p "$ARTIFACTS"
[ -n "${LOREBOT_FUZZ_GIT:-}" ] || export LOREBOT_FUZZ_NO_GIT=1
# target:max_len:runs
for t in mail:65536:1000 mbox:65536:5000 subject:512:100000 console:65536:20000 \
	 diff:65536:100000; do
	name=${t%%:*}
	max=${t#*:}
	runs=${LOREBOT_FUZZ_RUNS:-${max#*:}}
	max=${max%:*}
	# work on a copy: the committed seeds stay as they are
	cp -r "$LOREBOT_SRC/tests/fuzz/corpus/$name" "$TMP/corpus-$name"
	"$FUZZ/fuzz-$name" -seed="$seed" -runs="$runs" -max_total_time="$secs" \
		-max_len="$max" -timeout="$hang" \
		-rss_limit_mb=2048 -artifact_prefix="$ARTIFACTS/$name-" \
		"$TMP/corpus-$name" >"$TMP/$name.log" 2>&1
	rc=$?
	is "$rc" 0 "fuzz-$name: $runs inputs (seed $seed) without a crash, leak or hang"
	[ "$rc" = 0 ] || tail -30 "$TMP/$name.log" | sed 's/^/# /'
	like "$(tail -1 "$TMP/$name.log")" "^Done [0-9]+ runs" "fuzz-$name finished its run"
done
done_testing

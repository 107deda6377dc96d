#!/bin/sh
# A short libFuzzer run of the mail, mbox, subject, console and diff parsers (ASan+UBSan,
# leak detection).  LOREBOT_FUZZ_SECONDS sets the time per target.  An input
# that runs longer than LOREBOT_FUZZ_TIMEOUT seconds (60) is a hang: the mail
# target runs git mailinfo for each input, which on a loaded CI machine (three
# kernel builds beside this test) has taken over 10 s for one ordinary seed.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

FUZZ=${LOREBOT_FUZZ_DIR:-$LOREBOT_SRC/build-fuzz}
secs=${LOREBOT_FUZZ_SECONDS:-15}
hang=${LOREBOT_FUZZ_TIMEOUT:-60}
[ -x "$FUZZ/fuzz-mail" ] || skip_all "fuzzers not built (make fuzz)"

mkdir -p "$ARTIFACTS"
for t in mail:65536 mbox:65536 subject:512 console:65536 diff:65536; do
	name=${t%%:*}
	max=${t#*:}
	# work on a copy: the committed seeds stay as they are
	cp -r "$LOREBOT_SRC/tests/fuzz/corpus/$name" "$TMP/corpus-$name"
	"$FUZZ/fuzz-$name" -max_total_time="$secs" -max_len="$max" -timeout="$hang" \
		-rss_limit_mb=2048 -artifact_prefix="$ARTIFACTS/$name-" \
		"$TMP/corpus-$name" >"$TMP/$name.log" 2>&1
	rc=$?
	is "$rc" 0 "fuzz-$name ran ${secs}s without a crash, leak or hang"
	[ "$rc" = 0 ] || tail -30 "$TMP/$name.log" | sed 's/^/# /'
	like "$(tail -1 "$TMP/$name.log")" "^Done [0-9]+ runs" "fuzz-$name finished its run"
done
done_testing

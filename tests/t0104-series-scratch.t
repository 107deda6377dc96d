#!/bin/sh
# series --mbox past its memory budget: the assembly moves to a scratch
# file, and what comes out is exactly what the in-memory assembly gives
# schedule: middle 4.9 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"

# the real threads, the hand-made cases, bad input and a generated list
python3 "$LOREBOT_SRC/tests/gen-bad-input.py" "$TMP" || exit 1
rm -f "$TMP/huge.mbox"		# t0102 has it; 100 MB adds nothing here
# 30,000 unthreaded patches are t0102's (that the grouping by sender,
# version and time scales); here their first 3,000 (570 KB, far past the
# 64k window) take the grouping through the scratch file as well: in
# windows of 1 byte and 64k every sort of the 30,000 emptied the window
# at every look, 160 of this test's 186 CPU s
awk '/^From mboxrd@z / && ++n > 3000 { exit } { print }' "$TMP/unthreaded.mbox" \
	>"$TMP/unthreaded.3k" && mv "$TMP/unthreaded.3k" "$TMP/unthreaded.mbox" || exit 1
python3 "$LOREBOT_SRC/bench/gen-mbox.py" 3000 "$TMP/list.mbox" || exit 1
# 2,000 problems (no Message-ID, not threaded): more than the 64 KB of
# them kept in memory once in the scratch file
python3 - "$TMP/problems.mbox" <<'EOP' || exit 1
import sys
with open(sys.argv[1], "w") as f:
    for i in range(2000):
        f.write("From x@y Thu Jan  1 00:00:00 2026\n"
                f"From: Dev {i % 7} <dev{i % 7}@example.org>\n"
                f"Subject: [PATCH {i % 3 + 1}/3] change {i // 3}\n"
                f"Date: Thu, 1 Jan 2026 00:{i // 60 % 60:02d}:{i % 60:02d} +0000\n\n"
                f"body {i}\n---\n f | 1 +\n\ndiff --git a/f b/f\n\n")
EOP
ls "$FIXTURES"/lore/*.mbox "$FIXTURES"/mail/*.mbox "$TMP"/*.mbox >"$TMP/inputs" 2>/dev/null

# once in memory, once in the scratch file from the first message (with a
# window of one byte: emptied at every look), once past 64k (the arena's
# first chunk: a small fixture moves at once, the generated list after a
# few hundred messages)
# series FILE OUT OPTION...
series() {
	f=$1 out=$2
	shift 2
	"$LOREBOT" series --mbox "$f" "$@" >"$out.out" 2>"$out.err"
	echo $? >"$out.rc"
}
n=0
for f in $(cat "$TMP/inputs"); do
	b=$TMP/$(basename "$f" .mbox)
	series "$f" "$b.mem" --json --memory=1g
	for budget in 1 64k; do
		# the 10,000 nested replies are there for their depth, every one
		# attached in the scratch file at budget 1; at 64k the first ~150
		# would move there, which the other inputs show: 9 CPU s more
		[ "$budget:${f##*/}" != 64k:nested.mbox ] || continue
		series "$f" "$b.scr$budget" --json --memory=$budget
		# the note that the scratch file was used is the one difference
		grep -v 'assembled in a scratch file$' "$b.scr$budget.err" >"$b.scr$budget.err2"
		if cmp -s "$b.mem.out" "$b.scr$budget.out" &&
		   cmp -s "$b.mem.err" "$b.scr$budget.err2" &&
		   cmp -s "$b.mem.rc" "$b.scr$budget.rc"; then
			ok "$(basename "$f"), --memory=$budget: the same JSON, problems and exit status" true
		else
			ok "$(basename "$f"), --memory=$budget: the same JSON, problems and exit status" false
			diff "$b.mem.out" "$b.scr$budget.out" | head -5 | sed 's/^/# /'
			diff "$b.mem.err" "$b.scr$budget.err2" | head -5 | sed 's/^/# /'
		fi
	done
	n=$((n + 1))
done
ok "every input compared ($n)" test "$n" -ge 20

# messages over --max-size are skipped the same way in the scratch file
series "$TMP/list.mbox" "$TMP/small.mem" --json --memory=1g --max-size=3k
series "$TMP/list.mbox" "$TMP/small.scr" --json --memory=1 --max-size=3k
grep -v 'assembled in a scratch file$' "$TMP/small.scr.err" >"$TMP/small.scr.err2"
ok "--max-size: the same JSON in the scratch file" cmp "$TMP/small.mem.out" "$TMP/small.scr.out"
ok "--max-size: the same problems in the scratch file" cmp "$TMP/small.mem.err" "$TMP/small.scr.err2"
is "$(grep -c 'too large' "$TMP/small.scr.err")" "$(grep -c 'too large' "$TMP/small.mem.err")" \
	"--max-size: as many skipped"
ok "--max-size: some were skipped" test "$(grep -c 'too large' "$TMP/small.mem.err")" -gt 100

# the text form goes through the same walk
series "$TMP/list.mbox" "$TMP/text.mem" --memory=1g
series "$TMP/list.mbox" "$TMP/text.scr" --memory=1
ok "text form: the same" cmp "$TMP/text.mem.out" "$TMP/text.scr.out"
is "$(cat "$TMP/text.scr.rc")" 0 "text form in the scratch file: exit 0"
like "$(head -1 "$TMP/text.scr.out")" "^[0-9a-f]{12} v[0-9]+ " "text form: a line per version"
like "$(cat "$TMP/text.scr.err")" \
	"list.mbox: more than 1 bytes of messages; assembled in a scratch file" \
	"the move to the scratch file is said on stderr"
unlike "$(cat "$TMP/text.mem.err")" "scratch" "within the budget, nothing is said"

# what the generated list holds, so that the comparison above means something
is "$(json "$TMP/list.scr1.out" "d['messages'] >= 3000")" True "all 3,000 generated messages read in the scratch file"
ok "the generated list has series with replies and trailers" \
	json "$TMP/list.scr1.out" "exit(0 if sum(s['replies'] for s in d['series']) > 500 and \
		any(len(p['trailers']) > 2 for s in d['series'] for p in s['patches']) and \
		any(s['superseded_by'] for s in d['series']) else 1)"
is "$(json "$TMP/nested.scr1.out" "d['series'][0]['replies']")" 10000 \
	"10,000 nested replies: every one attached in the scratch file too"
is "$(json "$TMP/problems.scr1.out" "len(d['problems']) >= 2000")" True \
	"2,000 problems in the scratch file, in order (compared above)"

# nowhere to write the scratch file: a clear error, exit 3, no half output
if command -v bwrap >/dev/null && bwrap --ro-bind / / true 2>/dev/null; then
	bwrap --ro-bind / / --dev /dev --proc /proc "$LOREBOT" series \
		--mbox "$TMP/list.mbox" --json --memory=1 >"$TMP/ro.out" 2>"$TMP/ro.err"
	is "$?" 3 "read-only \$TMPDIR and /var/tmp: exit 3"
	like "$(cat "$TMP/ro.err")" \
		"list.mbox: cannot create a scratch file in .*: Read-only file system" \
		"the error is named"
	like "$(cat "$TMP/ro.err")" "needs a writable \\\$TMPDIR" "and what it needs"
	is "$(wc -c <"$TMP/ro.out")" 0 "nothing on stdout"
else
	ok "# SKIP bwrap cannot make / read-only here" true
fi

# a full disk: space is reserved before it is used, so it is an error
# (here the file size limit plays the full disk: its signal ignored, the
# reservation fails with EFBIG), never a SIGBUS
(
	trap '' XFSZ
	ulimit -f 4096 2>/dev/null || exit 42
	exec "$LOREBOT" series --mbox "$TMP/list.mbox" --json --memory=1
) >"$TMP/full.out" 2>"$TMP/full.err"
rc=$?
if [ $rc = 42 ]; then
	ok "# SKIP no ulimit -f here" true
else
	is "$rc" 3 "the scratch file cannot grow: exit 3"
	like "$(cat "$TMP/full.err")" \
		"list.mbox: scratch file in .*: cannot grow to [0-9]+ MB: File too large" \
		"what failed, and how large the file was to be"
	is "$(wc -c <"$TMP/full.out")" 0 "nothing on stdout"
fi

# the budget is configurable, and checked
cat >"$TMP/conf" <<EOC
[series]
	memory = 1
EOC
"$LOREBOT" --config "$TMP/conf" series --mbox "$FIXTURES/lore/000_73a05b4700ab1a7a.mbox" \
	>/dev/null 2>"$TMP/conf.err"
like "$(cat "$TMP/conf.err")" "assembled in a scratch file" "series.memory sets the budget"
ok "config --check knows series.memory" "$LOREBOT" config --check "$TMP/conf"
fails "a bad --memory is a usage error" "$LOREBOT" series --mbox "$TMP/list.mbox" --memory=lots
like "$("$LOREBOT" series -h)" "--memory SIZE" "series -h documents --memory"
done_testing

#!/bin/sh
# series --mbox past its memory budget: the messages move to a scratch
# database, and what comes out is exactly what the in-memory assembly gives
. "${LOREBOT_SRC:-.}/tests/lib.sh"

# the real threads, the hand-made cases, bad input and a generated list
python3 "$LOREBOT_SRC/tests/gen-bad-input.py" "$TMP" || exit 1
rm -f "$TMP/huge.mbox"		# t0102 has it; 100 MB adds nothing here
python3 "$LOREBOT_SRC/bench/gen-mbox.py" 3000 "$TMP/list.mbox" || exit 1
# 2,000 problems (no Message-ID, not threaded): more than the 64 KB of
# them kept in memory once on disk
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

# once in memory, once on disk from the first message, once past 64k (the
# arena's first chunk: a small fixture moves at once, the generated list
# after a few hundred messages)
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
		series "$f" "$b.disk$budget" --json --memory=$budget
		# the note that the scratch database was used is the one difference
		grep -v 'assembled in a scratch database$' "$b.disk$budget.err" >"$b.disk$budget.err2"
		if cmp -s "$b.mem.out" "$b.disk$budget.out" &&
		   cmp -s "$b.mem.err" "$b.disk$budget.err2" &&
		   cmp -s "$b.mem.rc" "$b.disk$budget.rc"; then
			ok "$(basename "$f"), --memory=$budget: the same JSON, problems and exit status" true
		else
			ok "$(basename "$f"), --memory=$budget: the same JSON, problems and exit status" false
			diff "$b.mem.out" "$b.disk$budget.out" | head -5 | sed 's/^/# /'
			diff "$b.mem.err" "$b.disk$budget.err2" | head -5 | sed 's/^/# /'
		fi
	done
	n=$((n + 1))
done
ok "every input compared ($n)" test "$n" -ge 20

# messages over --max-size are skipped the same way on disk (where a
# thread of its own reads and parses)
series "$TMP/list.mbox" "$TMP/small.mem" --json --memory=1g --max-size=3k
series "$TMP/list.mbox" "$TMP/small.disk" --json --memory=1 --max-size=3k
grep -v 'assembled in a scratch database$' "$TMP/small.disk.err" >"$TMP/small.disk.err2"
ok "--max-size: the same JSON on disk" cmp "$TMP/small.mem.out" "$TMP/small.disk.out"
ok "--max-size: the same problems on disk" cmp "$TMP/small.mem.err" "$TMP/small.disk.err2"
is "$(grep -c 'too large' "$TMP/small.disk.err")" "$(grep -c 'too large' "$TMP/small.mem.err")" \
	"--max-size: as many skipped"
ok "--max-size: some were skipped" test "$(grep -c 'too large' "$TMP/small.mem.err")" -gt 100

# the text form goes through the same walk
series "$TMP/list.mbox" "$TMP/text.mem" --memory=1g
series "$TMP/list.mbox" "$TMP/text.disk" --memory=1
ok "text form: the same" cmp "$TMP/text.mem.out" "$TMP/text.disk.out"
is "$(cat "$TMP/text.disk.rc")" 0 "text form on disk: exit 0"
like "$(head -1 "$TMP/text.disk.out")" "^[0-9a-f]{12} v[0-9]+ " "text form: a line per version"
like "$(cat "$TMP/text.disk.err")" \
	"list.mbox: more than 1 bytes of messages; assembled in a scratch database" \
	"the move to the scratch database is said on stderr"
unlike "$(cat "$TMP/text.mem.err")" "scratch database" "within the budget, nothing is said"

# what the generated list holds, so that the comparison above means something
is "$(json "$TMP/list.disk1.out" "d['messages'] >= 3000")" True "all 3,000 generated messages read on disk"
ok "the generated list has series with replies and trailers" \
	json "$TMP/list.disk1.out" "exit(0 if sum(s['replies'] for s in d['series']) > 500 and \
		any(len(p['trailers']) > 2 for s in d['series'] for p in s['patches']) and \
		any(s['superseded_by'] for s in d['series']) else 1)"
is "$(json "$TMP/nested.disk1.out" "d['series'][0]['replies']")" 10000 \
	"10,000 nested replies: every one attached on disk too"
is "$(json "$TMP/problems.disk1.out" "len(d['problems']) >= 2000")" True \
	"2,000 problems on disk, in order (compared above)"

# nowhere to write the scratch database: a clear error, exit 3, no
# half output (20,000 messages outgrow SQLite's cache, so it needs a file)
if command -v bwrap >/dev/null && bwrap --ro-bind / / true 2>/dev/null; then
	python3 "$LOREBOT_SRC/bench/gen-mbox.py" 20000 "$TMP/big.mbox" || exit 1
	bwrap --ro-bind / / --dev /dev --proc /proc "$LOREBOT" series \
		--mbox "$TMP/big.mbox" --json --memory=1 >"$TMP/ro.out" 2>"$TMP/ro.err"
	is "$?" 3 "read-only \$TMPDIR and /var/tmp: exit 3"
	like "$(cat "$TMP/ro.err")" "big.mbox: scratch database: .*error" \
		"the database error is named"
	like "$(cat "$TMP/ro.err")" "needs a writable \\\$TMPDIR" "and what it needs"
	is "$(wc -c <"$TMP/ro.out")" 0 "nothing on stdout"
	rm -f "$TMP/big.mbox"
else
	ok "# SKIP bwrap cannot make / read-only here" true
fi

# the budget is configurable, and checked
cat >"$TMP/conf" <<EOC
[series]
	memory = 1
EOC
"$LOREBOT" --config "$TMP/conf" series --mbox "$FIXTURES/lore/000_73a05b4700ab1a7a.mbox" \
	>/dev/null 2>"$TMP/conf.err"
like "$(cat "$TMP/conf.err")" "assembled in a scratch database" "series.memory sets the budget"
ok "config --check knows series.memory" "$LOREBOT" config --check "$TMP/conf"
fails "a bad --memory is a usage error" "$LOREBOT" series --mbox "$TMP/list.mbox" --memory=lots
like "$("$LOREBOT" series -h)" "--memory SIZE" "series -h documents --memory"
done_testing

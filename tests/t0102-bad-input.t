#!/bin/sh
# Bad input never crashes or hangs: the bad message is named, the rest is read
. "${LOREBOT_SRC:-.}/tests/lib.sh"

python3 "$LOREBOT_SRC/tests/gen-bad-input.py" "$TMP" || exit 1

run() {
	timeout 300 "$LOREBOT" series --mbox "$TMP/$1.mbox" --json >"$TMP/$1.json" 2>"$TMP/$1.err"
	echo $?
}
ids="sorted(p['msgid'] for s in d['series'] for p in s['patches'])"

is "$(run truncated)" 0 "truncated file: exit 0"
is "$(json $TMP/truncated.json "$ids")" "['t1@x', 't2@x']" "truncated: the complete messages are read"
like "$(cat $TMP/truncated.err)" "message 3: " "truncated: the broken last message is named"

is "$(run garbage)" 0 "binary garbage: exit 0"
is "$(json $TMP/garbage.json "$ids")" "['g1@x']" "garbage: the good message after it is read"
like "$(cat $TMP/garbage.err)" "message 1: not a mail message" "garbage: named as not a mail message"

is "$(run huge)" 0 "100 MB message: exit 0"
is "$(json $TMP/huge.json "$ids")" "['h1@x', 'h2@x']" "huge: both neighbours are read"
like "$(cat $TMP/huge.err)" "message 2: too large \(104857[0-9]* bytes, limit 16777216\); skipped" \
	"huge: named, with its size and the limit"

is "$(run nested)" 0 "10,000 nested replies: exit 0"
is "$(json $TMP/nested.json "d['series'][0]['replies']")" 10000 "nested: every reply attached"
is "$(json $TMP/nested.json "[t['name'] for t in d['series'][0]['patches'][0]['trailers']]")" \
	"['Signed-off-by', 'Reviewed-by']" "nested: the trailer 10,000 replies deep reaches the patch"

is "$(run broken-headers)" 0 "headers without colons, unterminated base64: exit 0"
is "$(json $TMP/broken-headers.json "($ids, d['messages'])")" "(['bh1@x'], 2)" \
	"broken headers: the good and the base64 message are read"
like "$(cat $TMP/broken-headers.err)" "message 1: not a mail message" "the message without headers is named"

is "$(run bad-utf8)" 0 "invalid UTF-8: exit 0"
is "$(json $TMP/bad-utf8.json "$ids")" "['u1@x', 'u2@x']" "invalid UTF-8: both messages read"
like "$(cat $TMP/bad-utf8.err)" "message 1 <u1@x>: invalid UTF-8 in body" "invalid UTF-8 body reported"
is "$(run unthreaded)" 0 "30,000 patches without threading: exit 0"
is "$(json $TMP/unthreaded.json "(len(d['series']), all(s['complete'] and s['version'] == 1 \
	for s in d['series']))")" "(10000, True)" "unthreaded: grouped into 10,000 complete sends"
is "$(grep -c 'is not threaded; grouped by sender, version and time' $TMP/unthreaded.err)" 30000 \
	"unthreaded: each named"
done_testing

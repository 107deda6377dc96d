#!/bin/sh
# b4 as the oracle of series assembly (issue 2): against the local
# public-inbox, `b4 am` must pick the same patches, in the same order, with
# the same trailers, as lorebot assembled from the same inbox.
# (Debian's b4 0.12 crashes in `b4 am -m FILE` on folded subjects, so b4
# reads the threads from the server, as it does from lore.)
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

command -v b4 >/dev/null || skip_all "b4 is not installed"
lab_setup
lorebot --db "$DB" fetch --url "$URL" >/dev/null 2>"$TMP/fetch.err" ||
	echo "Bail out! fetch failed: $(cat "$TMP/fetch.err")"
lorebot --db "$DB" series --json >"$TMP/series.json"

# thread, the Message-ID given to b4, the lorebot version to compare
b4_same <<EOF
000 20260824073801.982490-1-hebaoquan@kylinos.cn 20260824073801.982490-1-hebaoquan@kylinos.cn
003 20260207081613.588598-1-vernon2gm@gmail.com 20260207081613.588598-1-vernon2gm@gmail.com
004 20250115033807.46664-1-21cnbao@gmail.com 20250115033807.46664-1-21cnbao@gmail.com
004-from-a-patch 20250115033807.46664-4-21cnbao@gmail.com 20250115033807.46664-1-21cnbao@gmail.com
EOF

# the counts the acceptance of issue 2 names, seen by b4
is "$(grep -c '^Message-Id:' "$TMP/000.mbx")" 9 "b4: 000 has 9 patches"
is "$(grep -c '^Message-Id:' "$TMP/003.mbx")" 5 "b4: 003 has 5 patches (v7)"
is "$(grep -c '^Message-Id:' "$TMP/004.mbx")" 4 "b4: 004 has 4 patches (v3)"
like "$(cat "$TMP/004.b4err")" "Reviewed-by: Kefeng Wang" "b4 collected the 004 reviews too"

# the comparison can fail: b4's 004 against lorebot's 003
python3 "$LOREBOT_SRC/tests/b4-compare.py" "$TMP/004.mbx" "$TMP/series.json" \
	20260207081613.588598-1-vernon2gm@gmail.com >"$TMP/neg.cmp"
is "$?" 1 "a different series is told apart"
like "$(cat "$TMP/neg.cmp")" "^DIFF patches" "and reported as a difference"
done_testing

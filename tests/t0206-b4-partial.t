#!/bin/sh
# b4 as the oracle of series selection where issue 20 changed it: a partial
# resend (v3 2/2 alone, in reply to v2 2/2; b4's partial reroll) and a cover
# letter without 0/N.  Against the local public-inbox, b4 am must pick the
# same patches, with the same trailers, as lorebot assembled from it.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"

command -v b4 >/dev/null || skip_all "b4 is not installed"
S=$FIXTURES/series
lab_setup "$S/partial.mbox" "$S/cover-no-counter.mbox"
lorebot --db "$DB" fetch --url "$URL" >/dev/null 2>"$TMP/fetch.err" ||
	echo "Bail out! fetch failed: $(cat "$TMP/fetch.err")"
lorebot --db "$DB" series --json >"$TMP/series.json" 2>"$TMP/series.err"

# name, the Message-ID given to b4, the lorebot version to compare
b4_same <<LIST
partial a3-2 a3-2
partial-from-v2 a2-0 a3-2
cover-no-counter c2-0 c2-0
LIST
like "$(cat "$TMP/partial.b4err")" "Partial reroll detected" "b4 saw the partial reroll too"
done_testing

#!/bin/sh
# Who sent what decides how versions join (issue 20): a change-id, title or
# RESEND copied by another sender starts a series of its own; a trusted
# sender continues one; a partial resend is completed from the version it
# answers (b4's partial reroll), by its own sender only; a cover letter
# without 0/N is one; a reused Message-ID never displaces the first copy;
# reply chains read in any order are read in linear time.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

S=$FIXTURES/series
series() {
	out=$1
	shift
	lorebot series --json "$@" >"$TMP/$out.json" 2>"$TMP/$out.err"
}
# field of the version whose id is given
v() {
	json "$TMP/$1.json" "[s for s in d['series'] if s['id'] == '$2'][0]$3"
}

# a change-id copied into another sender's v2
series cid --mbox "$S/change-id.mbox"
is "$(v cid a1-0 "['superseded_by']")" "None" "a copied change-id does not supersede the first sender's v1"
ok "the copy is a series of its own" \
	test "$(v cid a1-0 "['series_id']")" != "$(v cid m2-0 "['series_id']")"
is "$(v cid m2-0 "['title']")" "mm: mallory's frob" "under its own title"
is "$(json "$TMP/cid.json" "len(d['series'])")" 2 "two versions, one per sender"

# a RESEND of the same title by another sender
series res --mbox "$S/resend.mbox"
is "$(v res a2-0 "['superseded_by']")" "None" "another sender's RESEND does not supersede"
ok "and is another series" test "$(v res a2-0 "['series_id']")" != "$(v res m2-0 "['series_id']")"

# a trusted sender (series.trust) continues anyone's series
series untrusted --mbox "$S/trusted.mbox"
ok "without series.trust, a maintainer's resend is another series" \
	test "$(v untrusted a1-0 "['series_id']")" != "$(v untrusted k1-0 "['series_id']")"
cat >"$TMP/trust.conf" <<EOF
[series]
	trust = akpm@linux-foundation.org
EOF
lorebot --config "$TMP/trust.conf" series --json --mbox "$S/trusted.mbox" >"$TMP/trusted.json"
is "$(v trusted a1-0 "['series_id']")" "$(v trusted k1-0 "['series_id']")" \
	"with series.trust, it joins the series"
is "$(v trusted a1-0 "['superseded_by']")" "k1-0" "and supersedes the first send"
is "$(v trusted a1-0 "['series_id']")" "$(v cid a1-0 "['series_id']")" \
	"the series keeps the id the first sender's change-id gave it"

# a partial resend: v3 2/2 alone, in reply to v2 2/2
series part --mbox "$S/partial.mbox"
is "$(v part a3-2 "['complete']")" "True" "v3 2/2 alone is completed from v2 (b4's partial reroll)"
is "$(v part a3-2 "['reroll_from']")" 2 "reroll_from names v2"
is "$(v part a3-2 "[\"patches\"][0][\"msgid\"]") $(v part a3-2 "[\"patches\"][1][\"msgid\"]")" \
	"a2-1 a3-2" "v2's 1/2, then the new 2/2"
is "$(v part a3-2 "['cover']")" "a2-0" "with v2's cover letter"
is "$(v part a2-0 "['superseded_by']")" "a3-2" "v3 supersedes v2"
is "$(v part a3-2 "['series_id']")" "$(v part a2-0 "['series_id']")" "one series"
like "$(v part a3-2 "['patches'][1]['trailers']")" "Acked-by.*Dave Reviewer" \
	"the new 2/2 keeps the Acked-by given to v2's cover letter"
like "$(v part a3-2 "['patches'][0]['trailers']")" "Reviewed-by.*Dave Reviewer" \
	"1/2 keeps its Reviewed-by"
like "$(cat "$TMP/part.err")" "v3 resends 1 of 2 patches in reply to v2: completed from v2" \
	"the completion is reported"

# ... only by the same sender
series other --mbox "$S/partial-other.mbox"
is "$(json "$TMP/other.json" "[s['complete'] for s in d['series'] if s['version'] == 3]")" \
	"[False]" "another sender's v3 2/2 is not completed with the first sender's patches"
is "$(v other a2-0 "['superseded_by']")" "None" "and does not supersede v2"

# a cover letter without 0/N: the diffstat-bearing parent of the patches
series cover --mbox "$S/cover-no-counter.mbox"
is "$(v cover c2-0 "['cover']")" "c2-0" "[PATCH v2] with a diffstat is the cover letter"
is "$(v cover c2-0 "['complete']") $(v cover c2-0 "['version']")" "True 2" "of a complete v2"
like "$(v cover c2-0 "['patches'][1]['trailers']")" "Acked-by.*Dave Reviewer" \
	"the Acked-by given to it reaches every patch"
is "$(v cover c2-0 "['base_commit']")" "67410da53b7c6bed63fa5f2d6d9fa774aa835799" \
	"its base-commit counts"

# a reused Message-ID, dated earlier, stored later
lorebot --db "$TMP/m.db" fetch --mbox "$S/reused-msgid.mbox" >/dev/null
lorebot --db "$TMP/m.db" fetch --mbox "$S/reused-msgid-later.mbox" >/dev/null
is "$(sqlite3 "$TMP/m.db" "SELECT count(*) FROM messages WHERE msgid = 'a1-2'")" 2 \
	"both messages with the Message-ID are stored"
lorebot --db "$TMP/m.db" series --json >"$TMP/db.json" 2>"$TMP/db.err"
is "$(v db a1-0 "['complete']")" "True" "the series stays complete"
is "$(v db a1-0 "['patches'][1]['author']['email']")" "alice@example.org" \
	"patch 2 is the first copy stored, not the earlier-dated one"
like "$(cat "$TMP/db.err")" "<a1-2>: the Message-ID of message #3, first in the archive \(or stored first\), with other content; not used" \
	"the collision is reported"

# replies whose parents come later: every trailer found (bench/ measures time)
"$PY" "$LOREBOT_SRC/bench/gen-replies.py" 400 "$TMP/rev.mbox"
series rev --mbox "$TMP/rev.mbox"
is "$(v rev s-0@example.org "['replies']")" 400 "400 replies, each chain read deepest first, all attached"
is "$(json "$TMP/rev.json" "len([t for s in d['series'] for t in s['patches'][0]['trailers'] if t['name'] == 'Reviewed-by'])")" \
	40 "the Reviewed-by of all 40 reviewers reach patch 1"
"$PY" "$LOREBOT_SRC/bench/gen-replies.py" 400 "$TMP/rev8.mbox" 8
series rev8 --mbox "$TMP/rev8.mbox"
is "$(v rev8 s-0@example.org "['replies']")" 400 "400 replies in chains of 8, all attached"
done_testing

#!/bin/sh
# Real list traffic as b4 and git read it (issue 45): cover letters without
# 0/N and with the version only on them, cover-letter trailers carried to
# every patch (byte for byte as b4 am -t + git am commit them), a cover
# letter and patches that disagree on the count or the version, a patch in
# a second text/plain part or an octet-stream attachment, a saved message
# whose body holds an unquoted "From <sha>" line; a format=flowed reply's
# trailers, reviews carried from one version to the next as b4 carries
# them, patches numbered past their count by another sender, a cover letter
# from another address than its patches.  The mail is linux-xfs's
# (tests/fixtures/real/extract.py says where from; Message-IDs below); the
# benchmark over a few hundred such threads is bench/real-series.py.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

R=$FIXTURES/real
series() {
	lorebot series --mbox "$R/$1.mbox" --json >"$TMP/$1.json" 2>"$TMP/$1.err"
}
# the current version with patches: "version cover have/total complete"
current() {
	json "$TMP/$1.json" "' '.join(str(x) for x in [(s['version'], s['cover'], '%d/%d' % (sum(1 for p in s['patches']), s['total']), s['complete']) for s in d['series'] if not s['superseded_by'] and s['patches']][0])"
}

# A cover letter without 0/N, the version only on it ([PATCHSET V2] above
# [PATCH 1/3]..[PATCH 3/3]), a Reviewed-by given on it
# <174525589013.2138337.16473045486118778580.stgit@frogsfrogsfrogs>
C=174525589013.2138337.16473045486118778580.stgit@frogsfrogsfrogs
series cover-v2-no-counter
is "$(current cover-v2-no-counter)" "2 $C 3/3 True" \
	"[PATCHSET V2] without 0/N is the cover letter, v2 its patches' version"
is "$(json "$TMP/cover-v2-no-counter.json" "len(d['series'])")" 1 "one send"
is "$(json "$TMP/cover-v2-no-counter.json" "[sum(1 for t in p['trailers'] if t['value'] == 'Luis Chamberlain <mcgrof@kernel.org>') for p in d['series'][0]['patches']]")" \
	"[1, 1, 1]" "the Reviewed-by given on the cover letter is on every patch"

# A cover letter counting 89 above patches counting 92 (a cross-posted
# series, three patches of it on the list) <20230705185812.579118-1-jlayton@kernel.org>
series cover-count-differs
is "$(current cover-count-differs)" \
	"2 20230705185812.579118-1-jlayton@kernel.org 3/92 False" \
	"[PATCH v2 00/89] above [PATCH v2 07/92]: one send of 92, its cover letter"
is "$(json "$TMP/cover-count-differs.json" "[p['n'] for p in d['series'][0]['patches']]")" \
	"[7, 8, 92]" "patches 7, 8 and 92 of it"

# A cover letter of v2 above [PATCH v4 1/2] and [PATCH v3 2/2]
# <20200917051341.9811-1-hsiangkao@redhat.com>: v4 is the latest, with the
# cover letter, as b4 reads it
series cover-version-differs
is "$(current cover-version-differs)" \
	"4 20200917051341.9811-1-hsiangkao@redhat.com 1/2 False" \
	"[PATCH v2 0/2] above [PATCH v4 1/2]: v4 with the cover letter"

# v4 sent in reply to v3's cover letter, each patch too
# <20221218221054.3946886-1-agruenba@redhat.com>
series cover-sibling
is "$(current cover-sibling)" \
	"4 20221218221054.3946886-1-agruenba@redhat.com 7/7 True" \
	"[RFC v4 0/7] and its patches, all in reply to [RFC v3 0/7]: one send"

# A format=flowed reply: its Reviewed-by follows a quoted "> " line, which
# git's unflowing joins it to; b4 reads the lines as sent
# <d79a0fd3-a7c9-e4d6-48f6-b0eca2712498@suse.de>
series sample-flowed-reply
is "$(json "$TMP/sample-flowed-reply.json" "[t['value'] for t in d['series'][0]['patches'][0]['trailers'] if t['name'] == 'Reviewed-by']")" \
	"['Hannes Reinecke <hare@suse.com>']" \
	"the Reviewed-by of a flowed reply after a quoted '> ' line is taken"

# v1's patches 3, 4 and 6 reviewed in replies; v2 (in reply to v1's cover
# letter) has the same diffs: b4 carries the reviews to v2, by the hash
# patchwork gives a diff <20210116092328.2667-1-bastiangermann@fishpost.de>
series sample-carried-trailers
is "$(json "$TMP/sample-carried-trailers.json" "[p['n'] for s in d['series'] if s['version'] == 2 for p in s['patches'] if {'name': 'Reviewed-by', 'value': 'Darrick J. Wong <djwong@kernel.org>'} in p['trailers']]")" \
	"[3, 4, 6]" "v1's reviews are carried to the v2 patches of the same diff"

# A patch numbered past its count, sent by someone else in reply to the
# series: [RFC PATCH 3/2] in reply to patch 1/2
# <20231120195021.GF36190@frogsfrogsfrogs>, [PATCH 4/3] in reply to a
# cover letter of 3 <20211110023405.GY24307@magnolia>: one patch more of
# the series, as b4 reads it
series sample-past-count
is "$(current sample-past-count)" "1 None 3/3 True" "[RFC PATCH 3/2] is patch 3 of the series"
is "$(json "$TMP/sample-past-count.json" "d['series'][0]['patches'][2]['msgid']")" \
	20231120195021.GF36190@frogsfrogsfrogs "...Darrick's, in reply to Carlos's 1/2"
series sample-past-count-cover
is "$(current sample-past-count-cover)" \
	"1 a98ed48b-7297-34af-2a2a-795b15b35f12@redhat.com 4/4 True" \
	"[PATCH 4/3] in reply to the cover letter of 3 is patch 4"

# A cover letter from one address above patches from another, none from
# its own <166212614879.31305.11337231919093625864.stgit@andromeda>: their
# cover letter
series sample-cover-other-address
is "$(current sample-cover-other-address)" \
	"1 166212614879.31305.11337231919093625864.stgit@andromeda 2/2 True" \
	"the cover letter from another address is the patches'"

# b4 0.12 as the oracle (b4 am -t -m, the thread made readable for it by
# tests/b4-unfold.py; never lorebot's input)
b4local() {	# MBOX MSGID NAME [FLAG...]: b4 am -C -o - (default flag -t)
	_m=$1 _id=$2 _n=$3
	shift 3
	[ $# -gt 0 ] || set -- -t
	"$PY" "$LOREBOT_SRC/tests/b4-unfold.py" "$_m" "$TMP/$_n.in" >/dev/null
	(mkdir -p "$TMP/b4w" && cd "$TMP/b4w" && b4 am -C "$@" -m "$TMP/$_n.in" -o - "$_id") \
		>"$TMP/$_n.mbx" 2>"$TMP/$_n.b4err"
}
if command -v b4 >/dev/null; then
	git config --global b4.attestation-policy off
	git config --global user.name "lorebot test"	# b4 wants one
	git config --global user.email test@lorebot.invalid
	while read -r f id version; do
		b4local "$R/$f.mbox" "$id" "$f"
		"$PY" "$LOREBOT_SRC/tests/b4-compare.py" "$TMP/$f.mbx" "$TMP/$f.json" \
			"$version" >"$TMP/$f.cmp"
		is "$?" 0 "b4: $f: $(head -1 "$TMP/$f.cmp")"
		is "$(grep '^DIFF' "$TMP/$f.cmp")" "" "b4: $f: the same trailers on every patch"
	done <<-EOF
	cover-v2-no-counter $C $C
	cover-count-differs 20230705185812.579118-1-jlayton@kernel.org 20230705185812.579118-1-jlayton@kernel.org
	cover-version-differs 20200917051341.9811-1-hsiangkao@redhat.com 20200917051341.9811-1-hsiangkao@redhat.com
	cover-sibling 20221216150626.670312-1-agruenba@redhat.com 20221218221054.3946886-1-agruenba@redhat.com
	EOF
	(mkdir -p "$TMP/b4dir" && cd "$TMP/b4w" &&
		b4 am -C -t -m "$TMP/cover-v2-no-counter.in" -o "$TMP/b4dir" "$C") >/dev/null 2>&1
	is "$(cd "$TMP/b4dir" && ls)" \
		"v2_20250421_djwong_block_xfs_bdev_page_cache_bug_fixes_for_6_15.cover
v2_20250421_djwong_block_xfs_bdev_page_cache_bug_fixes_for_6_15.mbx" \
		"b4 reads v2 with its cover letter too"

	# The cover-letter trailer, byte for byte: lorebot apply against
	# b4 am -t -l + git am, on a tree the real patches apply to
	mkdir -p "$TMP/w"
	"$PY" "$LOREBOT_SRC/tests/synth-tree.py" "$R/cover-v2-no-counter.mbox" "$TMP/w" &&
		git -C "$TMP/w" init -q -b mm-new && git -C "$TMP/w" add . &&
		git -C "$TMP/w" commit -q -m base && git clone -q --bare "$TMP/w" "$TMP/r.git" ||
		echo "Bail out! cannot make the tree"
	lorebot apply --mbox "$R/cover-v2-no-counter.mbox" --repo "$TMP/r.git" --no-branch \
		--json >"$TMP/apply.json" 2>"$TMP/apply.err"
	is "$?" 0 "lorebot apply: the three patches apply"
	b4local "$R/cover-v2-no-counter.mbox" "$C" am -t -l
	git clone -q "$TMP/r.git" "$TMP/am" && git -C "$TMP/am" checkout -q mm-new &&
		git -C "$TMP/am" am -q "$TMP/am.mbx"
	is "$?" 0 "git am takes b4's mbox"
	fmt='%an <%ae> %ad%n%B%%'
	git --git-dir="$TMP/r.git" log --reverse --format="$fmt" \
		"mm-new..$(json "$TMP/apply.json" "d['tip']")" >"$TMP/ours"
	git -C "$TMP/am" log --reverse --format="$fmt" origin/mm-new..HEAD >"$TMP/theirs"
	ok "the commits' authors, dates and messages are b4 + git am's, byte for byte" \
		cmp "$TMP/ours" "$TMP/theirs"
	cmp -s "$TMP/ours" "$TMP/theirs" || diff "$TMP/theirs" "$TMP/ours" | sed 's/^/# /'
	is "$(grep -c '^Reviewed-by: Luis Chamberlain <mcgrof@kernel.org>$' "$TMP/ours")" 3 \
		"the cover letter's Reviewed-by is in the three commits"

	# The benchmark's sample (bench/real-series.py; its figures on a few
	# hundred threads are in bench/README.md): every fixture thread
	# against b4, every patch mail against git mailinfo
	"$PY" "$LOREBOT_SRC/bench/real-series.py" sample "$TMP/rs" "$R"/*.mbox "$R"/*.eml
	"$PY" "$LOREBOT_SRC/bench/real-series.py" compare "$TMP/rs" --jobs 1 --list \
		--json "$TMP/rs.json" >"$TMP/rs.out" 2>"$TMP/rs.err"
	is "$?" 0 "bench/real-series.py on the sample: no undocumented difference"
	grep '^  [A-Z]' "$TMP/rs.out" | head -10 | sed 's/^/# /'
	is "$(json "$TMP/rs.json" "(len(d['threads']), d['summary']['counted'], d['summary']['agree'])")" \
		"(16, 12, {'version': 12, 'patches': 12, 'complete': 12, 'cover': 12})" \
		"16 threads, 12 counted, all 12 agree with b4"
	is "$(json "$TMP/rs.json" "sorted(d['summary']['design'].items()) + sorted(d['summary']['trailer_design'].items())")" \
		"[('b4-strict-thread', 1), ('b4-v1-taken', 1), ('cover-without-diffstat', 1), ('later-copy', 1), ('message-quotes-diff', 1), ('no-known-trailer', 1)]" \
		"each documented difference of the sample is named"
	is "$(json "$TMP/rs.json" "(d['mails']['compared'], d['mails']['git_patch_lorebot_none'], d['mails']['undocumented'])")" \
		"(71, [], [])" "71 patch mails: git finds no patch lorebot misses, no undocumented difference"
	# the comparison can fail: a lorebot that loses the cover letters' trailers
	cat >"$TMP/lossy" <<-EOF
	#!/bin/sh
	"$LOREBOT" "\$@" | "$PY" -c 'import json, sys
	d = json.load(sys.stdin)
	for s in d.get("series", []):
	    for p in s["patches"]:
	        p["trailers"] = [t for t in p["trailers"] if "Luis" not in t["value"]]
	json.dump(d, sys.stdout)'
	EOF
	chmod +x "$TMP/lossy"
	LOREBOT=$TMP/lossy "$PY" "$LOREBOT_SRC/bench/real-series.py" compare "$TMP/rs" \
		--only threads --pick cover-v2-no-counter --list >"$TMP/lossy.out" 2>&1
	is "$?" 1 "a lorebot that drops a trailer fails the comparison"
	like "$(cat "$TMP/lossy.out")" "TRAILERS cover-v2-no-counter .* only b4 \['Reviewed-by: Luis" \
		"and the trailer is named"
else
	skip "b4 is not installed"
fi

# A patch attached as a second text/plain part after a short note
# <ZQoPaXNAwtu4wl02@casper.infradead.org>, and patches attached as
# application/octet-stream <20230519105528.1321.409509F4@e16-tech.com>:
# found, as git mailinfo finds them
for f in attached-text-plain attached-octet-stream; do
	lorebot mailinfo "$TMP/$f.msg" "$TMP/$f.patch" <"$R/$f.eml" >"$TMP/$f.info"
	like "$(cat "$TMP/$f.patch")" "^diff --git a/" "$f: the patch is found"
done
like "$(cat "$TMP/attached-text-plain.msg")" "Signed-off-by: Matthew Wilcox \(Oracle\)" \
	"attached-text-plain: the attached patch's message is read on"
lorebot mailinfo --compare --json "$R"/*.eml >"$TMP/compare.json"
is "$?" 0 "git mailinfo reads the three mails as lorebot does (documented differences only)"
is "$(json "$TMP/compare.json" 'd["compared"]')" 3 "three mails compared"

# A saved message (no separator) whose attachment begins with an unquoted
# "From <sha> Mon Sep 17 00:00:00 2001" line
# <20230907-lektion-organismus-f223e15828d9@brauner>: one message, as git am
# reads it
for f in pasted-from-line attached-text-plain; do
	lorebot series --mbox "$R/$f.eml" --json >"$TMP/$f.json" 2>"$TMP/$f.err"
	is "$(json "$TMP/$f.json" 'd["messages"]')" 1 "$f.eml: one message"
done
is "$(grep -c '^From [0-9a-f]\{40\} ' "$R/pasted-from-line.eml")" 1 \
	"(the fixture has the unquoted line)"
# ...but junk before an mbox still starts one (t0102)
{ printf 'some junk\n\n'; cat "$R/cover-sibling.mbox"; } >"$TMP/junk.mbox"
lorebot series --mbox "$TMP/junk.mbox" --json >"$TMP/junk.json" 2>/dev/null
is "$(json "$TMP/junk.json" 'd["messages"]')" 9 "junk, then an mbox: the mbox's 9 messages are read"
done_testing

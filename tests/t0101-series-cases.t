#!/bin/sh
# Series assembly on hand-made cases: broken threading, partial series,
# resends, versions, cover-letter trailers, chains, encodings
. "${LOREBOT_SRC:-.}/tests/lib.sh"

M=$FIXTURES/mail
series() {
	lorebot series --mbox "$M/$1.mbox" --json >"$TMP/$1.json" 2>"$TMP/$1.err"
}
cur="[s for s in d['series'] if not s['superseded_by']]"

series unthreaded
J=$TMP/unthreaded.json
is "$(json $J "len(d['series'])")" 1 "unthreaded: one send"
is "$(json $J "(d['series'][0]['complete'], d['series'][0]['cover'] is not None)")" \
	"(True, True)" "unthreaded: patches joined their cover letter by sender, version and time"
like "$(cat $TMP/unthreaded.err)" "message 3 <20240506090000.6666-3-alice@example.org>: patch 2/3 is not threaded" \
	"unthreaded: reported, naming the message"

series partial
J=$TMP/partial.json
is "$(json $J "(d['series'][0]['complete'], len(d['series'][0]['patches']), d['series'][0]['missing'])")" \
	"(False, 2, [2, 4])" "partial: kept, reported incomplete with the missing patches"

series resend
J=$TMP/resend.json
is "$(json $J "[(s['version'], s['resend'], s['superseded_by']) for s in d['series']]")" \
	"[(1, False, '20240513090000.3000-1-bob@example.net'), (2, False, '20240513090000.3000-1-bob@example.net'), (2, True, None)]" \
	"resend: v1 and v2 superseded by the RESEND of v2, which is current"
is "$(json $J "len(set(s['series_id'] for s in d['series']))")" 1 "resend: one series"

series versions-link
J=$TMP/versions-link.json
is "$(json $J "[(s['version'], s['title']) for s in $cur]")" "[(2, 'mm: new title')]" \
	"renamed v2 linked to v1 by the lore link in its cover letter"
is "$(json $J "len(set(s['series_id'] for s in d['series']))")" 1 "versions-link: one series"

series change-id
J=$TMP/change-id.json
is "$(json $J "len(set(s['series_id'] for s in d['series']))")" 1 "change-id links renamed versions"
is "$(json $J "d['series'][1]['change_id']")" 20240501-frob-abcdef "change-id reported"

series cover-trailers
J=$TMP/cover-trailers.json
tr="lambda n: [t['name'] + ': ' + t['value'] for t in d['series'][0]['patches'][n-1]['trailers'] if t['name'] != 'Signed-off-by']"
is "$(json $J "($tr)(1)")" "['Acked-by: Carol Ack <carol@example.com>']" \
	"an Acked-by on the cover letter goes to patch 1"
is "$(json $J "($tr)(2)")" \
	"['Acked-by: Carol Ack <carol@example.com>', 'Reviewed-by: Dave Reviewer <dave@example.org>']" \
	"...and to patch 2, plus the Reviewed-by given deeper in its thread"
unlike "$(cat $J)" "Somebody Else|Quoted Person" "trailers for others and quoted trailers are not taken"
is "$(json $J "d['series'][0]['replies']")" 4 "replies counted"

series chain
J=$TMP/chain.json
is "$(json $J "(len(d['series']), d['series'][0]['complete'])")" "(1, True)" \
	"chain-reply-to threading without a cover letter"
is "$(cat $TMP/chain.err)" "" "chain: nothing to report"

series crlf
is "$(json $TMP/crlf.json "(d['series'][0]['complete'], d['series'][0]['total'])")" "(True, 2)" \
	"CRLF mbox"

series encoded-headers
J=$TMP/encoded-headers.json
is "$(json $J "d['series'][0]['title']")" "mm: fix frob for Jörg and café" "encoded subject"
is "$(json $J "d['series'][0]['author']['name']")" "Jörg Rödel" "ISO-8859-1 encoded name"

series inbody
is "$(json $TMP/inbody.json "(d['series'][0]['author']['email'], d['series'][0]['title'])")" \
	"('author@example.com', 'mm: the real subject')" "in-body From: and Subject:"

series no-msgid
J=$TMP/no-msgid.json
is "$(json $J "(d['series'][0]['complete'], d['messages'])")" "(True, 4)" \
	"a message without Message-ID does not stop the others"
like "$(cat $TMP/no-msgid.err)" "message 2: no 'Message-ID' header" "and is named by its position"

: >"$TMP/empty.mbox"
lorebot series --mbox "$TMP/empty.mbox" --json >"$TMP/empty.json" 2>"$TMP/empty.err"
is "$?" 2 "a 0-byte file is read: exit 2, no mail in it (as check and apply)"
is "$(json $TMP/empty.json "(d['series'], d['messages'])")" "([], 0)" "and has no series"
like "$(cat $TMP/empty.err)" "empty.mbox: no mail message in it" "and says so"
printf 'just some text\nnot a mail\n' >"$TMP/text.txt"
lorebot series --mbox "$TMP/text.txt" >/dev/null 2>"$TMP/text.err"
is "$?" 2 "a text file: exit 2"
like "$(cat $TMP/text.err)" "message 1: not a mail message" "its first message named"

lorebot series --mbox "$TMP/does-not-exist" >/dev/null 2>"$TMP/err"
is "$?" 2 "a missing file exits 2"
like "$(cat $TMP/err)" "cannot read '.*does-not-exist': No such file" "and says why"

lorebot series --bogus >/dev/null 2>"$TMP/bogus.err"
is "$?" 2 "unknown option exits 2"
is "$(cat "$TMP/bogus.err")" "lorebot series: unrecognized option '--bogus'
(see 'lorebot series --help')" "said once, naming the option"
lorebot series --mbox >/dev/null 2>"$TMP/noarg.err"
is "$(head -1 "$TMP/noarg.err")" "lorebot series: option '--mbox' requires an argument" \
	"a known option without its argument is not called unknown"
"$LOREBOT" --frobnicate >/dev/null 2>"$TMP/main.err"
is "$?" 2 "lorebot --frobnicate exits 2"
is "$(head -1 "$TMP/main.err")" "lorebot: unrecognized option '--frobnicate'" \
	"naming the program, not the binary's path"
done_testing

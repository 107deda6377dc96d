#!/bin/sh
# lorebot series --mbox on the three real linux-mm threads
. "${LOREBOT_SRC:-.}/tests/lib.sh"

L=$FIXTURES/lore
for t in 000_73a05b4700ab1a7a 003_6100bb5053417aef 004_476fa21b8430df59; do
	lorebot series --mbox "$L/$t.mbox" --json >"$TMP/$t.json" 2>"$TMP/$t.err"
	is "$?" 0 "series --mbox $t exits 0"
done

J=$TMP/000_73a05b4700ab1a7a.json
cur="[s for s in d['series'] if not s['superseded_by']]"
is "$(json $J "len($cur)")" 1 "000: one current series"
is "$(json $J "$cur[0]['version']")" 1 "000: v1"
is "$(json $J "$cur[0]['total']")" 9 "000: of 9 patches"
is "$(json $J "len($cur[0]['patches'])")" 9 "000: all 9 patches present"
is "$(json $J "$cur[0]['complete']")" True "000: complete"
is "$(json $J "$cur[0]['cover']")" 20260824073801.982490-1-hebaoquan@kylinos.cn "000: cover letter"
is "$(json $J "[p['n'] for p in $cur[0]['patches']]")" "[1, 2, 3, 4, 5, 6, 7, 8, 9]" "000: patches in order"
is "$(json $J "$cur[0]['author']['email']")" hebaoquan@kylinos.cn "000: author"

J=$TMP/003_6100bb5053417aef.json
is "$(json $J "len($cur)")" 1 "003: one current series"
is "$(json $J "$cur[0]['version']")" 7 "003: v7"
is "$(json $J "$cur[0]['total']")" 5 "003: of 5 patches"
is "$(json $J "$cur[0]['complete']")" True "003: complete"
is "$(json $J "$cur[0]['tree']")" mm-new "003: tree tag mm-new"
is "$(json $J "$cur[0]['cover']")" 20260207081613.588598-1-vernon2gm@gmail.com \
	"003: the current cover is the second send"
old="[s for s in d['series'] if s['superseded_by']]"
is "$(json $J "len($old)")" 1 "003: one superseded send"
is "$(json $J "$old[0]['cover']")" 20260207081144.588545-1-vernon2gm@gmail.com \
	"003: the interrupted first send is the superseded one"
is "$(json $J "$old[0]['superseded_by']")" 20260207081613.588598-1-vernon2gm@gmail.com \
	"003: superseded by the second send"
is "$(json $J "$old[0]['complete']")" False "003: the first send is incomplete"
is "$(json $J "$old[0]['series_id'] == $cur[0]['series_id']")" True \
	"003: both sends belong to one series"
is "$(json $J "$cur[0]['resend']")" True "003: the second send is a resend"
is "$(json $J "$cur[0]['patches'][1]['subject']")" \
	"[PATCH mm-new v7 2/5] mm: khugepaged: refine scan progress number" "003: subject of 2/5"

J=$TMP/004_476fa21b8430df59.json
tr="lambda n, name: sorted(t['value'] for t in $cur[0]['patches'][n-1]['trailers'] if t['name'] == name)"
is "$(json $J "len($cur)")" 1 "004: one current series"
is "$(json $J "($cur[0]['version'], $cur[0]['total'], $cur[0]['complete'])")" \
	"(3, 4, True)" "004: v3, 4 patches, complete"
is "$(json $J "($tr)(1, 'Acked-by')")" "['David Hildenbrand <david@redhat.com>']" \
	"004 1/4: Acked-by from David Hildenbrand's reply"
is "$(json $J "($tr)(1, 'Reviewed-by')")" \
	"['Baolin Wang <baolin.wang@linux.alibaba.com>', 'Lance Yang <ioworker0@gmail.com>']" \
	"004 1/4: Reviewed-by from the replies"
is "$(json $J "($tr)(2, 'Acked-by')")" "['Will Deacon <will@kernel.org>']" \
	"004 2/4: Acked-by: Will Deacon"
is "$(json $J "($tr)(2, 'Reviewed-by')")" "['Kefeng Wang <wangkefeng.wang@huawei.com>']" \
	"004 2/4: Reviewed-by: Kefeng Wang"
is "$(json $J "($tr)(3, 'Reviewed-by')")" "[]" "004 3/4: no review trailers"
is "$(json $J "($tr)(4, 'Reviewed-by')")" \
	"['Baolin Wang <baolin.wang@linux.alibaba.com>', 'Lance Yang <ioworker0@gmail.com>']" \
	"004 4/4: Reviewed-by from the replies"
is "$(json $J "$cur[0]['patches'][0]['author']['email']")" v-songbaohua@oppo.com \
	"004: in-body From: gives the patch author"

# the text form: one line per version, one per patch
out=$(lorebot series --mbox "$L/004_476fa21b8430df59.mbox")
like "$out" "v3 mm: batched unmap lazyfree large folios during reclamation" "text: version line"
like "$out" "\[2/4\] mm: Support tlbbatch flush for a range of PTEs" "text: patch line"
done_testing

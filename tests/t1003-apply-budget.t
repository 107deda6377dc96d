#!/bin/sh
# Budgets below the size caps: a patch of very many hunks or files, or
# binary data that inflates far beyond its mail, is refused with the
# patch and the limit named, before it is parsed or inflated; the rest
# of the series and the next series go on.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo

# apply_one NAME [CONF]: apply NAME.mbox, the JSON in NAME.json
apply_one() {
	lorebot ${2:+--config "$2"} apply --mbox "$1.mbox" --repo "$R" --json \
		>"$1.json" 2>"$1.err"
}
msg() {
	json "$1.json" "d['patches'][${2:-0}]['message']"
}

# 30,000 one-line hunks (the default apply.maxhunks is 20000)
python3 -c '
import sys
print("diff --git a/x.txt b/x.txt\nindex 587be6b..1111111 100644\n--- a/x.txt\n+++ b/x.txt")
for i in range(30000):
    print("@@ -%d +%d @@\n-x\n+y" % (i + 1, i + 1))' | mkpatch hunks 1/2 >hunks.mbox
newfile fine.txt | mkpatch hunks 2/2 >>hunks.mbox
apply_one hunks
is "$?" 1 "30,000 hunks: the series does not apply"
like "$(msg hunks)" "refusing the patch: too many hunks for apply.maxhunks \(more than 20000 hunks\)" \
	"... refused naming the limit"
like "$(json hunks.json "d['patches'][0]['subject']")" "hunks" "... and the patch"

# a lower apply.maxfiles: 101 new files
printf '[apply]\n\tmaxfiles = 100\n\tmaxhunks = 500\n' >small.conf
for i in $(seq 101); do newfile "f$i.txt"; done | mkpatch files >files.mbox
apply_one files small.conf
is "$?" 1 "101 files over apply.maxfiles 100: refused"
like "$(msg files)" "too many files for apply.maxfiles \(more than 100 files\)" "... naming the limit"
for i in $(seq 100); do newfile "g$i.txt"; done | mkpatch files100 >files100.mbox
apply_one files100 small.conf
is "$?" 0 "100 files: applied"

# binary data that says it is 1 GiB
binbomb zero.bin 1073741824 1073741824 | mkpatch bomb 1/2 >bomb.mbox
newfile after-bomb.txt | mkpatch bomb 2/2 >>bomb.mbox
ok "the 1 GiB bomb is a small mail ($(wc -c <bomb.mbox) bytes)" test "$(wc -c <bomb.mbox)" -lt 3000000
apply_one bomb
is "$?" 1 "a 1 GiB binary literal: refused"
like "$(msg bomb)" "binary data larger than apply.maxbinarysize \(1073741824 bytes inflated\)" \
	"... before inflating, naming the limit"

# ... or that lies: says 100 bytes, inflates to 1 GiB
binbomb liar.bin 100 1073741824 | mkpatch liar >liar.mbox
apply_one liar
is "$?" 1 "a binary literal inflating beyond what it says: refused"
like "$(msg liar)" "binary data larger than apply.maxbinarysize \(more than 67108864 bytes inflated\)" \
	"... stopped at the limit"

# says 100, inflates to 200: corrupt
binbomb short.bin 100 200 | mkpatch short >short.mbox
apply_one short
is "$?" 1 "a binary literal of another size than it says: refused"
like "$(msg short)" "corrupt binary patch \(100 bytes said, 200 inflated\)" "... as corrupt"

# a binary file within the budget applies
binbomb ok.bin 4096 4096 | mkpatch binok >binok.mbox
apply_one binok
is "$?" 0 "a 4 KiB binary file applies"
is "$(git --git-dir="$R" cat-file -s "$(json binok.json "d['tip']"):ok.bin")" 4096 "... whole"

# the next series
newfile next.txt | mkpatch next >next.mbox
apply_one next
is "$?" 0 "the next series applies"
done_testing

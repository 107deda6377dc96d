#!/bin/sh
# The differential test of patch extraction (issue 20): lorebot's reading of
# every mail fixture, of the fuzz corpus and of generated mail against git
# mailinfo's (lorebot mailinfo --compare runs git), failing on any
# difference that is not one of the documented ones (--differences).
. "${LOREBOT_SRC:-.}/tests/lib.sh"

command -v git >/dev/null || skip_all "git is not installed"
MI=$FIXTURES/mailinfo

# generated mail: every form tests/gen-mailinfo.py knows, deterministic
"$PY" "$LOREBOT_SRC/tests/gen-mailinfo.py" 100 >"$TMP/gen.mbox"

compare() {
	out=$1
	shift
	lorebot mailinfo --compare --json "$@" >"$TMP/$out.json" 2>"$TMP/$out.err"
}

compare all "$FIXTURES"/lore/*.mbox "$FIXTURES"/mail/*.mbox \
	"$FIXTURES"/daemon/*.mbox "$MI"/*.eml "$MI"/*.mbox \
	"$LOREBOT_SRC"/tests/fuzz/corpus/mail/* "$LOREBOT_SRC"/tests/fuzz/corpus/mbox/* \
	"$TMP/gen.mbox"
is "$?" 0 "fixtures, fuzz corpus and generated mail: no undocumented difference"
is "$(cat "$TMP/all.err")" "" "every mail was read (nothing on stderr)"
diag "$(json "$TMP/all.json" '"%d mails compared: %d the same, %d refused by git, %d undocumented; documented: %s" % (d["compared"], d["same"], d["git_refused"], d["undocumented"], ", ".join("%s %d" % kv for kv in d["documented"].items() if kv[1]))')"
ok "over 250 mails compared" \
	test "$(json "$TMP/all.json" 'd["compared"]')" -gt 250
json "$TMP/all.json" '"\n".join("%s %d %s" % (m["file"], m["index"], f["field"]) for m in d["mails"] for f in m["fields"] if not f["class"])' |
	head -20 | sed -n 's/^./# UNDOCUMENTED &/p'

# the classes of the differences in one file of that run
classes_of() {
	json "$TMP/all.json" 'sorted({x["class"] or "UNDOCUMENTED" for m in d["mails"] if m["file"].endswith("/'"$1"'") for x in m["fields"]})'
}

# as git am --scissors (b4 reads mail so), on mail with scissors lines
"$PY" "$LOREBOT_SRC/tests/gen-mailinfo.py" 30 --scissors >"$TMP/cut.mbox"
ok "--scissors: scissors lines in the generated mail" \
	test "$(grep -c -e '-- >8 --' -e '8<---' -e '>% -' "$TMP/cut.mbox")" -gt 20
compare scissors --scissors "$TMP/cut.mbox"
is "$?" 0 "--scissors: no undocumented difference"
is "$(json "$TMP/scissors.json" 'd["compared"]')" 30 "--scissors: 30 mails compared"

# the forms of the issue, where lorebot and git agree field by field
for f in inbody-folded pasted-quoted list-tag encoded-padded patchline crlf; do
	is "$(classes_of "$f.eml")" "[]" "$f: lorebot reads what git mailinfo reads"
done
lorebot mailinfo "$TMP/msg" "$TMP/patch" <"$MI/inbody-folded.eml" >"$TMP/info"
like "$(cat "$TMP/info")" "^Author: Real Author With A Long Name" \
	"folded in-body From: gives the author"
like "$(cat "$TMP/info")" "Subject: mm: the real subject" "folded in-body Subject:"
like "$(head -1 "$TMP/msg")" "^Fix the frob" "no in-body header left in the message"
lorebot mailinfo "$TMP/msg" "$TMP/patch" <"$MI/pasted-quoted.eml" >"$TMP/info"
like "$(cat "$TMP/info")" "Email: real@example.com" \
	"after a pasted 'From <sha>' line, the in-body From: still counts"
like "$(cat "$TMP/info")" "Date: Tue, 7 May 2024 11:00:00 \+0200" "and its Date:"
lorebot mailinfo "$TMP/msg" "$TMP/patch" <"$MI/list-tag.eml" >"$TMP/info"
like "$(cat "$TMP/info")" "Subject: mm: listed title$" "a list tag before [PATCH] is not in the title"
lorebot mailinfo "$TMP/msg" "$TMP/patch" <"$MI/encoded-padded.eml" >"$TMP/info"
like "$(cat "$TMP/info")" "Subject: mm: abc –$" "padded base64 words: the subject whole"
like "$(cat "$TMP/info")" "Author: Jörg" "padded base64 words: the name whole"

# every documented difference is met by its own mail, and named there
lorebot mailinfo --differences >"$TMP/classes"
ok "the list of differences is not empty" test -s "$TMP/classes"
while read -r cls what; do
	f=$(ls "$MI/$cls".* 2>/dev/null | head -1)
	if [ -z "$f" ]; then
		is "" "$cls" "a mail for the difference '$cls'"
		continue
	fi
	is "$(classes_of "${f##*/}")" "['$cls']" "$cls: the difference is met and named ($what)"
	ok "$cls: doc/technical/mail.md explains it" grep -q "\`$cls\`" "$LOREBOT_SRC/doc/technical/mail.md"
done <"$TMP/classes"

# the comparison can fail: a git whose mailinfo reads another author
mkdir -p "$TMP/fakegit"
cat >"$TMP/fakegit/git" <<EOF
#!/bin/sh
if [ "\$1" = mailinfo ]; then
	$(command -v git) "\$@" | sed 's/^Author: .*/Author: Someone Else/'
	exit 0
fi
exec $(command -v git) "\$@"
EOF
chmod +x "$TMP/fakegit/git"
PATH=$TMP/fakegit:$PATH lorebot mailinfo --compare "$MI/list-tag.eml" >"$TMP/fake.out"
is "$?" 1 "a difference outside the list fails the comparison"
like "$(cat "$TMP/fake.out")" "author differs \(UNDOCUMENTED\)" "and is named"
done_testing

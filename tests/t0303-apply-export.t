#!/bin/sh
# lorebot apply --export: read-only trees per applied version for builds
. "${LOREBOT_SRC:-.}/tests/lib.sh"

cd "$TMP" || exit 1
cleanup_add "chmod -R u+w '$TMP/trees'"
S=$TMP/src
git init -q -b main "$S"
mkdir -p "$S/dir/sub"
seq 1 20 >"$S/a.txt"
printf 'int main(void) { return 0; }\n' >"$S/prog.c"
printf 'deep\n' >"$S/dir/sub/file.txt"
printf '#!/bin/sh\n' >"$S/run.sh" && chmod +x "$S/run.sh"
ln -s ../a.txt "$S/dir/link"
git -C "$S" add -A && git -C "$S" commit -qm base
sed -i 's/^5$/five/' "$S/a.txt" && printf 'new\n' >"$S/dir/new.txt"
git -C "$S" add -A && git -C "$S" commit -qm "change a, add dir/new.txt

Signed-off-by: lorebot test <test@lorebot.invalid>"
git -C "$S" format-patch -q --stdout -1 >p.mbox
R=$TMP/bot.git
git clone -q --bare "$S" "$R"
git --git-dir="$R" update-ref refs/heads/mm-new main~1

lorebot apply --mbox p.mbox --repo "$R" --export "$TMP/trees" --json >a.json 2>a.err
is "$?" 0 "applies and exports"
B=$(json a.json "d['export']['base']")
T=$(json a.json "d['export']['tree']")
is "$B" "$TMP/trees/$(git --git-dir="$R" rev-parse mm-new^{tree})" "the base's checkout is named by its tree id"
is "$T" "$TMP/trees/$(json a.json "d['tree']")" "the result's checkout is named by its tree id"
mkdir want && git --git-dir="$R" archive "$(json a.json "d['tip']")" | tar -C want -xf -
ok "the result's checkout has exactly the tree's files" diff -r want "$T"
is "$(readlink "$T/dir/link")" "../a.txt" "symlinks stay symlinks"
ok "executables stay executable" test -x "$T/run.sh"
is "$(find "$T" "$B" \( -type f -o -type d \) -perm /222 | wc -l)" 0 "nothing in either checkout is writable"
is "$(stat -c %i "$B/prog.c")" "$(stat -c %i "$T/prog.c")" "an unchanged file is a hard link into the base's checkout"
ok "a changed file is not" test "$(stat -c %i "$B/a.txt")" != "$(stat -c %i "$T/a.txt")"
is "$(cat "$B/a.txt" | sed -n 5p)" 5 "the base's checkout still has the old content"
if [ "$(id -u)" != 0 ]; then
	fails "the checkout cannot be written" sh -c "echo x >'$T/a.txt'"
fi

m=$(stat -c %Y "$T")
sleep 1
lorebot apply --mbox p.mbox --repo "$R" --export "$TMP/trees" --json >b.json 2>b.err
is "$(json b.json "d['export']['tree']")" "$T" "the same tree again: the same checkout"
is "$(stat -c %Y "$T")" "$m" "... not written again"
is "$(ls -a "$TMP/trees" | grep -c '^\.tmp')" 0 "no temporary directories left"

# mm-new moves on: today's base is exported with links into yesterday's
git -C "$S" checkout -q -b next main && echo 'echo next' >>"$S/run.sh" &&
	git -C "$S" commit -qam "next: run.sh"
sed -i 's/^10$/ten/' "$S/a.txt" && git -C "$S" commit -qam "a: ten

Signed-off-by: lorebot test <test@lorebot.invalid>"
git -C "$S" format-patch -q --stdout -1 >p2.mbox
git --git-dir="$R" fetch -q "$S" next:refs/heads/mm-new
lorebot apply --mbox p2.mbox --repo "$R" --export "$TMP/trees" --json >c.json 2>c.err
is "$?" 0 "a series on the next mm-new: applies and exports"
B2=$(json c.json "d['export']['base']")
ok "the new base has its own checkout" test "$B2" != "$B" -a -d "$B2"
is "$(stat -c %i "$B2/dir/sub/file.txt")" "$(stat -c %i "$B/dir/sub/file.txt")" \
	"the new base's unchanged files are hard links into the newest earlier checkout"
is "$(cat "$B2/run.sh" | tail -n 1)" "echo next" "the new base's changed file has its new content"
is "$(cat "$B/run.sh" | tail -n 1)" "#!/bin/sh" "... and the old checkout its old one"

done_testing

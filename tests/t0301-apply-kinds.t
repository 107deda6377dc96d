#!/bin/sh
# lorebot apply on small repositories: every kind of file change, offsets,
# reduced context, three-way merges, failures, several series, --fetch;
# git am / git apply are the oracle.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

S=$TMP/src
git init -q -b main "$S"
cd "$S" || exit 1
seq 1 30 >a.txt
printf 'keep\n' >gone.txt
seq 100 140 >old.txt
printf 'x\n' >mode.txt
printf 'int main(void) { return 0; }\n' >prog.c
head -c 3000 /dev/urandom >blob.bin
mkdir -p dir/sub && printf 'deep\n' >dir/sub/file.txt
git add -A && git commit -qm base && git tag base

# every kind of change in one patch
sed -i 's/^15$/fifteen/' a.txt
printf 'new\n' >new.txt
git rm -q gone.txt
git mv old.txt renamed.txt && sed -i 's/^120$/one-twenty/' renamed.txt
chmod +x mode.txt
head -c 100 /dev/urandom >>blob.bin
head -c 500 /dev/urandom >new.bin
ln -s ../a.txt dir/link
printf '#!/bin/sh\necho run\n' >run.sh && chmod +x run.sh
git add -A
git commit -qm "many kinds of change

A body that says why, wrapped
at a width people can read.

Reported-by: Some One <some@example.com>
Signed-off-by: lorebot test <test@lorebot.invalid>"
git format-patch -q --binary --stdout -1 >"$TMP/kinds.mbox"

# a three-patch series with a cover letter
git checkout -q -b series base
for i in 1 2 3; do
	sed -i "s/^$((i * 5))\$/changed $i/" a.txt
	git commit -qam "a: change $i

Signed-off-by: lorebot test <test@lorebot.invalid>"
done
git format-patch -q --cover-letter --thread --stdout base..series >"$TMP/series.mbox"

# bases the bot may meet: shifted lines, a changed context line, a conflict
git checkout -q -b shifted base && (printf 'top\n%.0s' 1 2 3 4 5; cat a.txt) >a.new &&
	mv a.new a.txt && git commit -qam shifted
git checkout -q -b changed13 base && sed -i 's/^13$/thirteen/' a.txt && git commit -qam changed13
git checkout -q -b conflict15 base && sed -i 's/^15$/FIFTEEN/' a.txt && git commit -qam conflict15
git checkout -q -b p15 base && sed -i 's/^15$/fifteen/' a.txt && git commit -qam "a: fifteen"
git format-patch -q --stdout -1 >"$TMP/p15.mbox"
git checkout -q main
cd "$TMP" || exit 1

R=$TMP/bot.git
git clone -q --bare "$S" "$R"
git --git-dir="$R" update-ref refs/heads/mm-new base
am_tree() {	# mbox [base] -> tree git am makes (cover letters dropped)
	git -C "$S" checkout -q -B am "${2:-base}" &&
		{ git -C "$S" am -q --empty=drop "$1" || git -C "$S" am --abort; } &&
		git -C "$S" rev-parse HEAD^{tree}
}

# --- every kind of change ----------------------------------------------------
lorebot apply --trailers mail --mbox kinds.mbox --repo "$R" --json >k.json 2>k.err
is "$?" 0 "kinds: applies (exit 0)"
J=k.json
is "$(json $J "d['patches'][0]['status'], d['patches'][0]['method']")" "('applied', 'binary')" \
	"kinds: applied, with a binary patch"
branch=$(json $J "d['branch']")
like "$branch" '^refs/heads/lorebot/[0-9a-f]+/v1$' "kinds: the branch lorebot/<series-id>/v1"
is "$(git --git-dir="$R" rev-parse "$branch^{tree}")" "$(am_tree "$TMP/kinds.mbox")" \
	"kinds: the same tree as git am"
is "$(git --git-dir="$R" log -1 --format='%an <%ae>%n%ad%n%B' "$branch")" \
	"$(git -C "$S" log -1 --format='%an <%ae>%n%ad%n%B' am)" \
	"kinds: the same author, date and message as git am"
like "$(git --git-dir="$R" log -1 --format=%B "$branch")" "Reported-by: Some One <some@example.com>" \
	"kinds: trailers kept"
is "$(git --git-dir="$R" rev-parse "$branch^")" "$(git --git-dir="$R" rev-parse base)" \
	"kinds: the parent is mm-new"
ok "kinds: git fsck --strict is clean" git --git-dir="$R" fsck --strict --no-dangling
is "$(git --git-dir="$R" ls-tree "$branch" mode.txt run.sh | cut -c1-6 | tr '\n' ' ')" "100755 100755 " \
	"kinds: mode change and new executable"
is "$(git --git-dir="$R" ls-tree "$branch" dir/link | cut -c1-6)" 120000 "kinds: a relative symlink inside the tree"

# --- a series with a cover letter ---------------------------------------------
lorebot apply --trailers mail --mbox series.mbox --repo "$R" --json >s.json 2>s.err
is "$?" 0 "series: applies"
J=s.json
is "$(json $J "[(p['n'], p['status'], p['method']) for p in d['patches']]")" \
	"[(1, 'applied', 'exact'), (2, 'applied', 'exact'), (3, 'applied', 'exact')]" \
	"series: three patches, each exact"
branch=$(json $J "d['branch']")
is "$(git --git-dir="$R" rev-list --count base.."$branch")" 3 "series: one commit per patch"
am_tree "$TMP/series.mbox" >/dev/null
is "$(git --git-dir="$R" log --format='%an|%ad|%B' base.."$branch")" \
	"$(git -C "$S" log --format='%an|%ad|%B' base..am)" "series: commits as git am makes them"
is "$(json $J "[p['commit'] for p in d['patches']][-1]")" "$(git --git-dir="$R" rev-parse "$branch")" \
	"series: the branch is at the last patch's commit"

# --- offset, reduced context, three-way ---------------------------------------
lorebot apply --mbox p15.mbox --repo "$R" --base shifted --json >o.json 2>/dev/null
is "$?" 0 "offset: applies"
is "$(json o.json "d['patches'][0]['method'], d['patches'][0]['hunks'][0]['offset']")" "('offset', 5)" \
	"offset: method offset, +5 lines"
like "$(git -C "$S" checkout -q shifted && git -C "$S" apply -v --check "$TMP/p15.mbox" 2>&1)" \
	"offset 5 lines" "offset: git apply -v says +5 too"

lorebot apply --mbox p15.mbox --repo "$R" --base changed13 --json >t.json 2>/dev/null
is "$?" 0 "3way: a changed context line, pre-image known: applies"
is "$(json t.json "d['patches'][0]['method']")" 3way "3way: by a three-way merge"
is "$(git --git-dir="$R" rev-parse "$(json t.json "d['branch']")^{tree}")" \
	"$(git -C "$S" checkout -q -B am changed13 && git -C "$S" am -q -3 "$TMP/p15.mbox" &&
	   git -C "$S" rev-parse HEAD^{tree} || git -C "$S" am --abort)" "3way: the same tree as git am -3"

lorebot apply --mbox p15.mbox --repo "$R" --base changed13 --no-3way --json >n.json 2>/dev/null
is "$?" 1 "--no-3way: does not apply"
like "$(json n.json "d['patches'][0]['message']")" "does not apply" "--no-3way: says the hunk does not apply"
fails "--no-3way: git apply agrees" sh -c "git -C '$S' checkout -q changed13 && git -C '$S' apply --check '$TMP/p15.mbox'"

lorebot apply --mbox p15.mbox --repo "$R" --base changed13 --no-3way -C 1 --json >c.json 2>/dev/null
is "$?" 0 "-C 1: applies with reduced context"
is "$(json c.json "d['patches'][0]['method']")" fuzz "-C 1: reported as fuzz"
is "$(git --git-dir="$R" rev-parse "$(json c.json "d['branch']")^{tree}")" \
	"$(git -C "$S" checkout -q -B am changed13 && git -C "$S" apply --index -C1 "$TMP/p15.mbox" 2>/dev/null &&
	   git -C "$S" write-tree && git -C "$S" reset -q --hard)" "-C 1: the same tree as git apply -C1"

lorebot apply --mbox p15.mbox --repo "$R" --base conflict15 --json >x.json 2>/dev/null
is "$?" 1 "3way conflict: does not apply"
like "$(json x.json "d['patches'][0]['message']")" "three-way merge with pre-image [0-9a-f]+ has conflicts" \
	"3way conflict: says so"
like "$(json x.json "' '.join(l['text'] for l in d['patches'][0]['failures'][0]['tree']['lines'])")" \
	"FIFTEEN" "3way conflict: shows the tree's line"

# a repository without the pre-image blob: only changed13's a.txt
R2=$TMP/other.git
git init -q --bare "$R2"
blob=$(git -C "$S" show changed13:a.txt | git --git-dir="$R2" hash-object -w --stdin)
T=$(printf '100644 blob %s\ta.txt\n' "$blob" | git --git-dir="$R2" mktree)
git --git-dir="$R2" update-ref refs/heads/mm-new "$(echo alone | git --git-dir="$R2" commit-tree "$T")"
lorebot apply --mbox p15.mbox --repo "$R2" --json >u.json 2>/dev/null
is "$?" 1 "no pre-image blob: does not apply"
like "$(json u.json "d['patches'][0]['message']")" "pre-image blob [0-9a-f]+ is not in the repository" \
	"no pre-image blob: says so"

# --- failures ----------------------------------------------------------------
mkpatch() {	# name: a patch from stdin with mail headers
	{
		printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
		printf 'From: Some One <some@example.com>\nDate: Mon, 1 Jun 2026 10:00:00 +0000\n'
		printf 'Subject: [PATCH] %s\nMessage-ID: <%s@example.com>\n\n%s\n\n' "$1" "$1" "$1"
		printf 'Signed-off-by: Some One <some@example.com>\n---\n'
		cat
		printf -- '-- \n2.39.2\n\n'
	} >"$1.mbox"
}
mkpatch missing <<'EOF'
diff --git a/nothere.c b/nothere.c
index 1111111..2222222 100644
--- a/nothere.c
+++ b/nothere.c
@@ -1,1 +1,1 @@
-a
+b
EOF
mkpatch exists <<'EOF'
diff --git a/prog.c b/prog.c
new file mode 100644
index 0000000..2222222
--- /dev/null
+++ b/prog.c
@@ -0,0 +1 @@
+int x;
EOF
mkpatch nodata <<'EOF'
diff --git a/blob.bin b/blob.bin
index 1111111..2222222 100644
Binary files a/blob.bin and b/blob.bin differ
EOF
for t in missing:"'nothere.c' does not exist in the tree" exists:"'prog.c' already exists in the tree" \
	 nodata:"binary patch without data"; do
	lorebot apply --mbox "${t%%:*}.mbox" --repo "$R" --json >f.json 2>/dev/null
	is "$?" 1 "${t%%:*}: does not apply"
	like "$(json f.json "d['patches'][0]['message']")" "${t#*:}" "${t%%:*}: ${t#*:}"
done
is "$(json f.json "d['patches'][0]['file'], d['patches'][0]['hunk']")" "('blob.bin', None)" \
	"a file-level failure names the file and no hunk"

# a series with a patch missing: the rest is tried alone
awk '/^From [0-9a-f]+ Mon Sep 17 00:00:00 2001$/ { n++ } n != 3' series.mbox >gap.mbox
lorebot apply --mbox gap.mbox --repo "$R" --json >g.json 2>g.err
is "$?" 1 "missing patch: does not apply"
is "$(json g.json "[p['status'] for p in d['patches']]")" "['applied', 'failed', 'skipped']" \
	"missing patch: 1 applied, 2 failed, 3 skipped"
like "$(json g.json "d['patches'][1]['message']")" "patch 2/3 is not in the mbox" "missing patch: named"
is "$(json g.json "d['patches'][2]['would_apply_alone']")" True "missing patch: 3/3 would apply alone"

# --- several series, --series, --fetch, exit codes --------------------------------
cat kinds.mbox series.mbox >two.mbox
lorebot apply --mbox two.mbox --repo "$R" --json >two.json 2>/dev/null
is "$?" 0 "two series: both apply"
is "$(json two.json "len(d['series'])")" 2 "two series: a list of results"
sid=$(json s.json "d['series_id']")
lorebot apply --mbox two.mbox --repo "$R" --series "$sid" --json >one.json 2>/dev/null
is "$(json one.json "d['series_id'], len(d['patches'])")" "('$sid', 3)" "--series ID: only that one"

cat >bot.conf <<EOF
[remote "up"]
	url = file://$S
	branch = main
	branch = series
[git]
	base = up/main
EOF
lorebot --config bot.conf apply --fetch --mbox p15.mbox --repo "$TMP/fresh.git" --json >fe.json 2>fe.err
is "$?" 0 "--fetch: creates the repository, fetches, applies"
is "$(json fe.json "d['patches'][0]['method']")" 3way \
	"--fetch: main made the same change: a clean three-way merge"
is "$(git --git-dir="$TMP/fresh.git" rev-parse refs/remotes/up/series)" "$(git -C "$S" rev-parse series)" \
	"--fetch: refs/remotes/up/series"
is "$(json fe.json "d['base']['name'], d['base']['sha']")" "('up/main', '$(git -C "$S" rev-parse main)')" \
	"--fetch: the configured base"

lorebot apply --mbox - --repo "$R" --base shifted --json <p15.mbox >stdin.json 2>/dev/null
is "$?:$(json stdin.json "d['patches'][0]['method']")" "0:offset" "--mbox -: reads stdin"

lorebot apply --repo "$R" >/dev/null 2>&1
is "$?" 2 "no --mbox: usage error"
printf 'From: a@b.c\nSubject: hello\nMessage-ID: <x@y>\n\nno patch\n' >nopatch.mbox
lorebot apply --mbox nopatch.mbox --repo "$R" >/dev/null 2>np.err
is "$?" 2 "no series in the mbox: input error"
like "$(cat np.err)" "no patch series" "... said so"
lorebot apply --mbox p15.mbox --repo "$TMP/nonexistent" >/dev/null 2>ne.err
is "$?" 3 "no repository: infrastructure error"
like "$(cat ne.err)" "cannot open repository" "... said so"
lorebot apply --mbox p15.mbox --repo "$R" --msgid x@y >/dev/null 2>mi.err
is "$?" 2 "--msgid: not in this build, said so"
git --git-dir="$R" update-ref -d refs/heads/mm-new
lorebot apply --mbox p15.mbox --repo "$R" >/dev/null 2>nb.err
is "$?" 3 "no mm-new: infrastructure error"
like "$(cat nb.err)" "mm-new: no such branch" "... naming the branch"

done_testing

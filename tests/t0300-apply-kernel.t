#!/bin/sh
# lorebot apply on the real 6.12 tree (the mm-new stand-in) with the three
# lore threads; git apply on a temporary index is the oracle.  A lock on
# lorebot's own branch that a killed run left is removed.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

MM=$(mm_repo) || skip_all "no mm-new stand-in (ci/mm-tree.sh)"
L=$FIXTURES/lore
R=$TMP/mm.git
git clone -q --bare --shared "$MM" "$R"
BASE=$(git --git-dir="$R" rev-parse mm-new)

# git's view: apply the patches of a result (by Message-ID) in order on a
# temporary index; print "N: ok" or "N: FILE:LINE" (git's "patch failed")
# or "N: FILE" (git's "does not exist in index") per patch
oracle_split() {
	rm -rf "$TMP/split" "$TMP/or" && mkdir -p "$TMP/split" "$TMP/or"
	git mailsplit --mboxrd -o"$TMP/split" "$1" >/dev/null
}
oracle_patch() {	# msgid -> $TMP/or/<msgid>.patch
	m=$(grep -l -i -F "Message-ID: <$1>" "$TMP"/split/* | head -n 1)
	git mailinfo "$TMP/or/msg" "$TMP/or/$1.patch" <"$m" >/dev/null 2>&1
	echo "$TMP/or/$1.patch"
}
GIT_DIR=$R GIT_INDEX_FILE=$TMP/base.idx git read-tree mm-new
oracle() {	# mbox json
	oracle_split "$1"
	cp "$TMP/base.idx" "$TMP/oracle.idx"
	n=0
	for id in $(json "$2" "' '.join(p['msgid'] for p in d['patches'])"); do
		n=$((n + 1))
		pf=$(oracle_patch "$id")
		if GIT_DIR=$R GIT_INDEX_FILE=$TMP/oracle.idx git apply --cached "$pf" 2>"$TMP/or/err"
		then
			echo "$n: ok"
		else
			echo "$n: $(sed -n 's/^error: patch failed: //p; s/^error: \(.*\): does not exist in index/\1/p' \
				"$TMP/or/err" | head -n 1)"
			break
		fi
	done
}

# --- thread 004 (v3, 4 patches) -------------------------------------------
lorebot apply --mbox "$L/004_476fa21b8430df59.mbox" --repo "$R" --json >"$TMP/004.json" 2>"$TMP/004.err"
is "$?" 1 "004: does not apply (exit 1)"
J=$TMP/004.json
is "$(json $J "d['base']['name'], d['base']['sha']")" "('mm-new', '$BASE')" \
	"004: base is mm-new, by name and full sha"
like "$(json $J "d['base']['reason']")" "no base-commit" "004: the reason says the series names no base-commit"
is "$(json $J "d['branch']")" None "004: no branch when a patch fails"
is "$(json $J "[p['status'] for p in d['patches']]")" "['applied', 'failed', 'skipped', 'skipped']" \
	"004: patch 1 applies, 2 fails, 3 and 4 are skipped"
is "$(json $J "d['patches'][0]['method']")" offset "004 1/4: applied at an offset"
is "$(json $J "[(h['file'], h['offset']) for h in d['patches'][0]['hunks']]")" \
	"[('mm/rmap.c', 10)]" "004 1/4: mm/rmap.c at offset +10 lines (as git apply -v)"
is "$(json $J "d['patches'][1]['file'], d['patches'][1]['hunk'][:20]")" \
	"('arch/arm64/include/asm/tlbflush.h', '@@ -322,13 +322,6 @@')" \
	"004 2/4: the first failure is arm64 tlbflush.h at @@ -322,13 +322,6 @@"
is "$(json $J "sorted(set(f['file'] for f in d['patches'][1]['failures']))")" \
	"['arch/arm64/include/asm/tlbflush.h', 'arch/riscv/mm/tlbflush.c']" \
	"004 2/4: every failing file is named"
is "$(json $J "[f['hunk'].split(' @@')[0] + ' @@' for f in d['patches'][1]['failures']]")" \
	"['@@ -322,13 +322,6 @@', '@@ -448,7 +441,7 @@', '@@ -460,12 +453,12 @@', '@@ -482,7 +475,7 @@', '@@ -533,6 +526,14 @@', '@@ -186,8 +186,9 @@']" \
	"004 2/4: every failing hunk is named (the ones git apply --reject rejects)"
riscv="[f for f in d['patches'][1]['failures'] if f['file'] == 'arch/riscv/mm/tlbflush.c'][0]"
is "$(json $J "[l['line'] for l in $riscv['tree']['lines'] if l['kind'] == '+' and 'uaddr & PAGE_MASK' in l['text']]")" \
	"[196]" "004 2/4: riscv: the tree's extra line is shown with its number"
is "$(json $J "$riscv['tree']['matched'], $riscv['tree']['total']")" "(8, 8)" \
	"004 2/4: riscv: every line the hunk expects is there, with others among them"
arm="d['patches'][1]['failures'][0]"
like "$(json $J "' '.join(l['text'] for l in $arm['tree']['lines'] if l['kind'] == ' ')")" \
	"static inline void arch_tlbbatch_add_pending" "004 2/4: arm64: the tree's lines are shown"
like "$(json $J "$arm['excerpt']")" "^ 	return true;" "004 2/4: the hunk's first lines are shown"
is "$(json $J "d['patches'][1]['msgid']")" "20250115033807.46664-3-21cnbao@gmail.com" \
	"004 2/4: the failing patch's Message-ID"
is "$(json $J "[(p['n'], p['would_apply_alone']) for p in d['patches'][2:]]")" \
	"[(3, False), (4, False)]" "004 3/4, 4/4: would not apply on their own either"
like "$(json $J "d['patches'][2]['message']")" "patch 2/4 does not apply" \
	"004 3/4: not applied because 2/4 failed"
is "$(json $J "sorted(set(f['file'] for f in d['patches'][3]['alone_failures']))")" "['mm/rmap.c']" \
	"004 4/4: alone, it fails on mm/rmap.c"

# git agrees, patch by patch (alone: on the base)
oracle "$L/004_476fa21b8430df59.mbox" "$J" >"$TMP/004.oracle"
is "$(sed -n 1,2p "$TMP/004.oracle" | tr '\n' ' ')" \
	"1: ok 2: arch/arm64/include/asm/tlbflush.h:322 " "oracle: git apply agrees on 1/4 and 2/4"
for n in 3 4; do
	pf=$(oracle_patch "$(json $J "d['patches'][$((n - 1))]['msgid']")")
	if GIT_DIR=$R GIT_INDEX_FILE=$TMP/base.idx git apply --cached --check "$pf" 2>/dev/null
	then want=True; else want=False; fi
	is "$(json $J "d['patches'][$((n - 1))]['would_apply_alone']")" "$want" \
		"oracle: git apply --check agrees on $n/4 alone"
done

lorebot apply --mbox "$L/004_476fa21b8430df59.mbox" --repo "$R" >"$TMP/004.txt" 2>&1
like "$(cat "$TMP/004.txt")" "arch/arm64/include/asm/tlbflush.h:322: error: hunk 1 @@ -322,13 \+322,6 @@" \
	"004 text: a compiler-format diagnostic for the failing hunk"
like "$(cat "$TMP/004.txt")" "196 \| 	unsigned long start = uaddr & PAGE_MASK;" \
	"004 text: the tree's lines with numbers"
like "$(cat "$TMP/004.txt")" "offset \+10 lines" "004 text: the offset of 1/4"
is "$(git --git-dir="$R" rev-parse mm-new)" "$BASE" "mm-new is not moved"

# --- threads 000 and 003: do not apply --------------------------------------
for t in 000_73a05b4700ab1a7a 003_6100bb5053417aef; do
	lorebot apply --mbox "$L/$t.mbox" --repo "$R" --json >"$TMP/$t.json" 2>"$TMP/$t.err"
	is "$?" 1 "$t: does not apply (exit 1)"
	J=$TMP/$t.json
	first=$(json $J "[p['n'] for p in d['patches'] if p['status'] == 'failed'][0]")
	oracle "$L/$t.mbox" "$J" >"$TMP/$t.oracle"
	want=$(grep -v ': ok$' "$TMP/$t.oracle" | head -n 1)
	is "$first" "${want%%:*}" "$t: the first failing patch is $first (git apply agrees)"
	wfile=${want#*: }
	is "$(json $J "[p['file'] for p in d['patches'] if p['status'] == 'failed'][0]")" \
		"${wfile%:*}" "$t: the failing file is ${wfile%:*} (git apply agrees)"
	case $wfile in
	*:*)	is "$(json $J "[str(p['failures'][0]['line']) for p in d['patches'] if p['status'] == 'failed'][0]")" \
			"${wfile##*:}" "$t: the failing hunk is at line ${wfile##*:} (git apply agrees)"
		like "$(json $J "[p['hunk'] for p in d['patches'] if p['status'] == 'failed'][0]")" \
			"^@@ -${wfile##*:}," "$t: the failing hunk's header is given";;
	*)	like "$(json $J "[p['message'] for p in d['patches'] if p['status'] == 'failed'][0]")" \
			"does not exist" "$t: the missing file is named";;
	esac
	is "$(json $J "d['branch']")" None "$t: no branch"
	is "$(json $J "all(p['would_apply_alone'] is not None for p in d['patches'] if p['status'] == 'skipped')")" \
		True "$t: every skipped patch says whether it would apply alone"
done

# --- base-commit present, unknown, fetched ----------------------------------
# the author's repository: X on mm-new, P on X (P needs X)
A=$TMP/author.git
git clone -q --bare --shared "$MM" "$A"
export GIT_DIR=$A GIT_INDEX_FILE=$TMP/author.idx
git read-tree mm-new
blob=$( (git cat-file blob mm-new:mm/Makefile; echo "# lorebot test base line") | git hash-object -w --stdin)
git update-index --cacheinfo 100644 "$blob" mm/Makefile
X=$(echo "test base" | git commit-tree "$(git write-tree)" -p mm-new)
blob=$( (git cat-file blob mm-new:mm/Makefile; echo "# lorebot test base line, changed") |
	git hash-object -w --stdin)
git update-index --cacheinfo 100644 "$blob" mm/Makefile
P=$(printf 'mm: change the test line\n\nSigned-off-by: lorebot test <test@lorebot.invalid>\n' |
	git commit-tree "$(git write-tree)" -p "$X")
git update-ref refs/heads/x "$X"
git format-patch -q --stdout --base="$X" -1 "$P" >"$TMP/p.mbox"
# another series with a base-commit nobody has, applying to mm-new anyway
blob=$( (git cat-file blob mm-new:mm/Kconfig; echo "# lorebot test") | git hash-object -w --stdin)
git read-tree mm-new
git update-index --cacheinfo 100644 "$blob" mm/Kconfig
Q=$(printf 'mm: add a line\n' | git commit-tree "$(git write-tree)" -p mm-new)
git format-patch -q --stdout -1 "$Q" |
	sed 's/^-- $/base-commit: 0123456789abcdef0123456789abcdef01234567\n-- /' >"$TMP/q.mbox"
unset GIT_DIR GIT_INDEX_FILE

# the bot's repository has X (not on any branch it tries) and an mm-new that moved on
git --git-dir="$A" push -q "$R" "$X:refs/heads/someone/x"
git --git-dir="$R" update-ref refs/heads/mm-new "$(echo moved | git --git-dir="$R" commit-tree mm-new^{tree} -p mm-new)"
lorebot apply --mbox "$TMP/p.mbox" --repo "$R" --json >"$TMP/p.json" 2>"$TMP/p.err"
is "$?" 0 "base-commit present: applies"
J=$TMP/p.json
is "$(json $J "d['base']['name'], d['base']['sha']")" "('base-commit', '$X')" \
	"base-commit present: applied on that commit"
is "$(git --git-dir="$R" rev-parse "$(json $J "d['branch']")^")" "$X" \
	"base-commit present: the commit's parent is the base-commit, not mm-new's tip"
like "$(json $J "d['branch']")" '^refs/heads/lorebot/[0-9a-f]+/v1$' "base-commit present: the branch"
is "$(git --git-dir="$R" rev-parse "$(json $J "d['branch']")^{tree}")" "$(git --git-dir="$A" rev-parse "$P^{tree}")" \
	"base-commit present: the same tree as the author's commit"

# without X: base-commit unknown, falls back to mm-new, says so
R2=$TMP/mm2.git
git clone -q --bare --shared "$MM" "$R2"
lorebot apply --mbox "$TMP/p.mbox" --repo "$R2" --json >"$TMP/p2.json" 2>"$TMP/p2.err"
is "$?" 1 "base-commit unknown: does not apply to mm-new"
J=$TMP/p2.json
is "$(json $J "d['base']['name'], d['base']['base_commit_unknown']")" "('mm-new', True)" \
	"base-commit unknown: falls back to mm-new and says the base-commit is unknown"
like "$(json $J "d['base']['reason']")" "base-commit $X is not in this repository.*may come from the different base" \
	"base-commit unknown: the reason does not blame the patch"
is "$(json $J "d['attempts'][0]['outcome']")" "not in the repository" "base-commit unknown: the attempt is recorded"
lorebot apply --mbox "$TMP/q.mbox" --repo "$R2" --json >"$TMP/q.json" 2>"$TMP/q.err"
is "$?" 0 "base-commit unknown, mm-new fine: applies"
J=$TMP/q.json
like "$(json $J "d['base']['reason']")" "not in this repository" "... and says the base-commit was unknown"

# --base overrides
lorebot apply --mbox "$TMP/p.mbox" --repo "$R" --base someone/x --json >"$TMP/b.json" 2>/dev/null
is "$?" 0 "--base REV: applies"
is "$(json $TMP/b.json "d['base']['name'], d['base']['sha'], d['base']['reason']")" \
	"('someone/x', '$X', 'given with --base')" "--base REV: used, said so"
lorebot apply --mbox "$TMP/p.mbox" --repo "$R" --base no-such-branch >"$TMP/b.out" 2>&1
is "$?" 2 "--base with an unknown revision: usage error"
like "$(cat "$TMP/b.out")" "no-such-branch: no such branch" "... naming it"

# commits are valid and carry the mail's author, date and message
# (full fsck of the commit objects: t0301 on small repositories)
ok "git fsck: every object the commits need is there" \
	git --git-dir="$R" fsck --connectivity-only --no-dangling
is "$(git --git-dir="$R" log -1 --format='%an <%ae>|%ad|%s' --date=raw "$(json $TMP/p.json "d['branch']")")" \
	"$(git --git-dir="$A" log -1 --format='%an <%ae>|%ad|%s' --date=raw "$P")" \
	"the commit has the mail's author, date and subject"

# a lock on its branch left by an apply that was killed (older than this
# run): removed, with a warning, and the branch updated; a lock taken
# after the run started is somebody's at work and stays
BR=$(json "$TMP/p.json" "d['branch']")
touch -d '1 minute ago' "$R/$BR.lock"
lorebot apply --mbox "$TMP/p.mbox" --repo "$R" --json >"$TMP/p2.json" 2>"$TMP/p2.err"
is "$?" 0 "a stale lock on its branch: applied"
like "$(cat "$TMP/p2.err")" "$BR.lock: removed a lock left by a run that was killed" \
	"and said what it removed"
ok "the lock is gone" test ! -e "$R/$BR.lock"
touch -d '1 hour' "$R/$BR.lock"
lorebot apply --mbox "$TMP/p.mbox" --repo "$R" --json >"$TMP/p3.json" 2>"$TMP/p3.err"
rc=$?
ok "a lock newer than the run: not applied (exit $rc)" test "$rc" -ne 0
like "$(cat "$TMP/p3.err" "$TMP/p3.json")" "$BR.*lock" "... for its lock"
ok "and the lock is still there" test -e "$R/$BR.lock"
rm -f "$R/$BR.lock"

done_testing

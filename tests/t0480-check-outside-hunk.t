#!/bin/sh
# A bug visible only outside the hunks (issue 40): a patch wraps the zone
# loop of compact_node() (mm/compaction.c of the 6.12 stand-in) in a new
# mutex, and the loop's "return -EINTR;" - code the patch does not change
# and its hunks do not show - now leaves with the mutex held.  Wherever a
# tree is there the rules read the whole function and report that return
# as the series' own problem: the daemon on its applied tree, lorebot
# check on a developer's branch, lorebot check --mbox --repo.  From the
# hunks alone unlock-exit cannot decide, and one note says so.
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/lore-lib.sh"
. "$LOREBOT_SRC/tests/daemon-lib.sh"

MM=$(mm_repo) || skip_all "no mm-new stand-in (ci/mm-tree.sh)"
R=$TMP/mm.git
git clone -q --bare --shared "$MM" "$R" || skip_all "cannot clone $MM"

# the developer's branch: one commit on mm-new, made without a checkout
git --git-dir="$R" show mm-new:mm/compaction.c >"$TMP/compaction.c"
edit_file "$TMP/compaction.c" 's.replace("#include \"internal.h\"\n",
	"#include \"internal.h\"\n\nstatic DEFINE_MUTEX(compact_node_mutex);\n", 1).replace(
	"\t};\n\n\tfor (zoneid = 0; zoneid < MAX_NR_ZONES; zoneid++) {\n\t\tzone = &pgdat->node_zones[zoneid];\n\t\tif (!populated_zone(zone))\n\t\t\tcontinue;\n\n\t\tif (fatal_signal_pending(current))\n\t\t\treturn -EINTR;",
	"\t};\n\n\tmutex_lock(&compact_node_mutex);\n\tfor (zoneid = 0; zoneid < MAX_NR_ZONES; zoneid++) {\n\t\tzone = &pgdat->node_zones[zoneid];\n\t\tif (!populated_zone(zone))\n\t\t\tcontinue;\n\n\t\tif (fatal_signal_pending(current))\n\t\t\treturn -EINTR;", 1).replace(
	"\t\t\t\t\t     cc.total_free_scanned);\n\t\t}\n\t}\n\n\treturn 0;\n}",
	"\t\t\t\t\t     cc.total_free_scanned);\n\t\t}\n\t}\n\tmutex_unlock(&compact_node_mutex);\n\n\treturn 0;\n}", 1)' ||
	{ echo "Bail out! cannot edit mm/compaction.c"; exit 1; }
BLOB=$(git --git-dir="$R" hash-object -w "$TMP/compaction.c")
GIT_INDEX_FILE=$TMP/index git --git-dir="$R" read-tree mm-new
GIT_INDEX_FILE=$TMP/index git --git-dir="$R" update-index --cacheinfo "100644,$BLOB,mm/compaction.c"
TREE=$(GIT_INDEX_FILE=$TMP/index git --git-dir="$R" write-tree)
C=$(printf '%s\n\n%s\n%s\n\n%s\n' "mm/compaction: serialize the compaction of a node" \
	"Proactive and on-demand compaction of one node should not run twice at" "once." \
	"Signed-off-by: lorebot test <test@lorebot.invalid>" |
	git --git-dir="$R" commit-tree "$TREE" -p mm-new)
git --git-dir="$R" update-ref refs/heads/serialize "$C"
# the line of the return the mutex now leaks, and of the lock
RET=$(grep -n -A8 'mutex_lock(&compact_node_mutex);' "$TMP/compaction.c" |
	sed -n 's/^\([0-9]*\)-\t\t\treturn -EINTR;$/\1/p')
LOCK=$(grep -n 'mutex_lock(&compact_node_mutex);' "$TMP/compaction.c" | cut -d: -f1)
ok "the return is found in the post-image" test -n "$RET"
git --git-dir="$R" format-patch -q --thread --base=mm-new --to=linux-mm@kvack.org \
	--stdout mm-new..serialize >"$TMP/serialize.patch"
# the hunks do not show it: neither the return nor a line near it
unlike "$(cat "$TMP/serialize.patch")" "EINTR" "the patch's hunks do not show the return"

# unlock-exit's findings of a check: "line severity" (notes apart)
found() {
	json - "sorted('%s:%s %s' % (f['file'], f['line'], f['severity']) for f in d['findings']
		if f['rule'] == 'unlock-exit')"
}

# hunks only: nothing reported, one note saying unlock-exit could not decide
lorebot check --mbox "$TMP/serialize.patch" --json --checkers=-all,unlock-exit \
	>"$TMP/hunks.json" 2>"$TMP/hunks.err"
is "$(found <"$TMP/hunks.json")" "[]" "hunks only: no finding of unlock-exit"
is "$(json "$TMP/hunks.json" "len([f for f in d['findings'] if f['rule'] == 'hunks-only'])")" 1 \
	"hunks only: one note for the patch"
like "$(json "$TMP/hunks.json" "[f['message'] for f in d['findings'] if f['rule'] == 'hunks-only'][0]")" \
	"not decidable from the hunks.*unlock-exit at mm/compaction.c:$LOCK" \
	"it names the rule and the lock it could not follow"

# with the tree (--repo): the return, reported as the series' own
lorebot check --mbox "$TMP/serialize.patch" --repo "$R" --json \
	--checkers=-all,unlock-exit >"$TMP/tree.json" 2>"$TMP/tree.err"
is "$(found <"$TMP/tree.json")" "['mm/compaction.c:$RET warning']" \
	"--repo: the return in the loop is reported"
is "$(json "$TMP/tree.json" "[f.get('cause') for f in d['findings'] if f['rule'] == 'unlock-exit']")" \
	"[$LOCK]" "on an unchanged line, caused by the lock the patch adds"
is "$(json "$TMP/tree.json" "len([f for f in d['findings'] if f['rule'] == 'hunks-only'])")" 0 \
	"--repo: no note, nothing left undecided"

# the developer's branch: lorebot check of mm-new..serialize in the tree
lorebot check --repo "$R" mm-new..serialize --json --checkers=-all,unlock-exit \
	>"$TMP/branch.json" 2>"$TMP/branch.err"
is "$(found <"$TMP/branch.json")" "['mm/compaction.c:$RET warning']" \
	"lorebot check on the branch: the return is reported"

# a goto the patch replaces by a return, its label (fatal_pending:, in
# isolate_migratepages_block()) far below the hunk: from the hunks, what
# the label did is unknown and the note asks; with the tree the paths
# walk the whole function (the lock is dropped before it) and nothing is
# left undecided
git --git-dir="$R" show mm-new:mm/compaction.c >"$TMP/goto.c"
edit_file "$TMP/goto.c" 's.replace("\t\t\t\tret = -EINTR;\n\n\t\t\t\tgoto fatal_pending;\n",
	"\t\t\t\tret = -EINTR;\n\n\t\t\t\treturn ret;\n", 1)' ||
	{ echo "Bail out! cannot edit mm/compaction.c"; exit 1; }
GRET=$(grep -n -B2 '^				return ret;$' "$TMP/goto.c" | grep -A2 'ret = -EINTR;' |
	sed -n 's/^\([0-9]*\):\t\t\t\treturn ret;$/\1/p')
ok "the replaced goto is found in the post-image" test -n "$GRET"
BLOB=$(git --git-dir="$R" hash-object -w "$TMP/goto.c")
GIT_INDEX_FILE=$TMP/index3 git --git-dir="$R" read-tree mm-new
GIT_INDEX_FILE=$TMP/index3 git --git-dir="$R" update-index --cacheinfo "100644,$BLOB,mm/compaction.c"
TREE=$(GIT_INDEX_FILE=$TMP/index3 git --git-dir="$R" write-tree)
C=$(printf '%s\n\n%s\n\n%s\n' "mm/compaction: return at once on a fatal signal" \
	"Nothing after the scan matters when the task is dying." \
	"Signed-off-by: lorebot test <test@lorebot.invalid>" |
	git --git-dir="$R" commit-tree "$TREE" -p mm-new)
git --git-dir="$R" update-ref refs/heads/goto-return "$C"
git --git-dir="$R" format-patch -q --thread --base=mm-new --to=linux-mm@kvack.org \
	--stdout mm-new..goto-return >"$TMP/goto.patch"
unlike "$(cat "$TMP/goto.patch")" "fatal_pending:" "the patch's hunks do not show the label"
lorebot check --mbox "$TMP/goto.patch" --json --checkers=-all,unlock-exit \
	>"$TMP/goto-hunks.json" 2>"$TMP/goto-hunks.err"
like "$(json "$TMP/goto-hunks.json" "[f['message'] for f in d['findings'] if f['rule'] == 'hunks-only']")" \
	"unlock-exit at mm/compaction.c:$GRET .whether the return of line $GRET skips what label fatal_pending did" \
	"hunks only: the note asks what the label the return replaces did"
lorebot check --mbox "$TMP/goto.patch" --repo "$R" --json --checkers=-all,unlock-exit \
	>"$TMP/goto-tree.json" 2>"$TMP/goto-tree.err"
is "$(json "$TMP/goto-tree.json" "[f['rule'] for f in d['findings']]")" "[]" \
	"--repo: no finding and no note"

# atomic-sleep one level into callees, with the tree: pcpu_balance_workfn()
# calls helpers under pcpu_lock that drop it before they sleep (no
# finding), and itself takes a mutex first (a finding when called under a
# spinlock the patch adds)
git --git-dir="$R" show mm-new:mm/percpu.c >"$TMP/percpu.c"
printf '%s\n' '' 'static DEFINE_SPINLOCK(probe_lock);' '' 'void pcpu_probe(void)' '{' \
	'	spin_lock(&probe_lock);' '	pcpu_balance_workfn(NULL);' '	spin_unlock(&probe_lock);' '}' \
	>>"$TMP/percpu.c"
PROBE=$(grep -n '^	pcpu_balance_workfn(NULL);$' "$TMP/percpu.c" | cut -d: -f1)
BLOB=$(git --git-dir="$R" hash-object -w "$TMP/percpu.c")
GIT_INDEX_FILE=$TMP/index2 git --git-dir="$R" read-tree mm-new
GIT_INDEX_FILE=$TMP/index2 git --git-dir="$R" update-index --cacheinfo "100644,$BLOB,mm/percpu.c"
TREE=$(GIT_INDEX_FILE=$TMP/index2 git --git-dir="$R" write-tree)
C=$(printf 'mm/percpu: a probe\n\nSigned-off-by: lorebot test <test@lorebot.invalid>\n' |
	git --git-dir="$R" commit-tree "$TREE" -p mm-new)
git --git-dir="$R" format-patch -q --base=mm-new --stdout mm-new.."$C" >"$TMP/probe.patch"
lorebot check --mbox "$TMP/probe.patch" --repo "$R" --json --preexisting \
	--checkers=-all,atomic-sleep >"$TMP/probe.json" 2>"$TMP/probe.err"
is "$(json "$TMP/probe.json" "sorted('%s:%s %s' % (f['file'], f['line'], f['severity'])
	for f in d['findings'] if f['rule'] == 'atomic-sleep')")" "['mm/percpu.c:$PROBE warning']" \
	"atomic-sleep: the callee that sleeps first, not those that unlock before sleeping"

# the daemon: the mail posted, applied to its tree, checked there
lab_setup
lore_conf daemon.window=0 boot.enable=false reply.mode=outbox series.memory=1
"$LORE_LAB" deliver "$LAB" <"$TMP/serialize.patch" ||
	{ echo "Bail out! cannot deliver the patch"; exit 1; }
timeout 600 "$LOREBOT" --db "$DB" --config "$CONF" daemon --url "$URL" --repo "$R" \
	--outbox "$TMP/outbox" --arch '' --once >"$TMP/daemon.out" 2>"$TMP/daemon.err"
is "$?" 0 "daemon --once exits 0"
V=$(sql "SELECT id FROM versions WHERE title = 'mm/compaction: serialize the compaction of a node'")
is "$(sql "SELECT status FROM results WHERE stage = 'apply' AND version = '$V'")" applied \
	"the daemon applied it"
is "$(sql "SELECT json FROM results WHERE stage = 'check' AND version = '$V'" | found)" \
	"['mm/compaction.c:$RET warning']" \
	"the daemon's check of the applied tree reports the return"
done_testing

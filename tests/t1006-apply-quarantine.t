#!/bin/sh
# lorebot apply --quarantine DIR, as the daemon's sandboxed apply runs:
# the new objects go to DIR, the repository is only read and no ref is
# made; the daemon takes in what it made (tests/unit/t-gitimport.c tries
# the import's attacks, t1030 the whole through the daemon).
. "${LOREBOT_SRC:-.}/tests/lib.sh"
. "$LOREBOT_SRC/tests/sec-lib.sh"

cd "$TMP" || exit 1
sec_repo
{ newfile mm/q.c 100644 one; } | mkpatch quarantined 1/2 >q.mbox
{ newfile mm/r.c 100644 two; } | mkpatch quarantined 2/2 >>q.mbox

refs() { git --git-dir="$R" for-each-ref --format='%(refname) %(objectname)'; }
objects() { find "$R/objects" -type f | sort | md5sum; }
before_refs=$(refs)
before_objects=$(objects)

mkdir Q
lorebot apply --mbox q.mbox --repo "$R" --quarantine "$TMP/Q" --json >q.json 2>q.err
is "$?" 0 "applied (exit 0)"
is "$(statuses q.json)" "['applied', 'applied']" "both patches applied"
like "$(json q.json "d['branch']")" '^refs/heads/lorebot/.*/v1$' "the branch to make is named"
tip=$(json q.json "d['tip']")
ok "the tip is named ($tip)" test -n "$tip"
is "$(refs)" "$before_refs" "no ref of the repository changed or was made"
is "$(objects)" "$before_objects" "no object was written into the repository"
git --git-dir="$R" cat-file -e "$tip" 2>/dev/null
ok "the tip is not in the repository" test "$?" != 0
ok "... it is in the quarantine, over the repository's objects" \
	env GIT_OBJECT_DIRECTORY="$TMP/Q" GIT_ALTERNATE_OBJECT_DIRECTORIES="$R/objects" \
	git --git-dir="$R" cat-file -e "$tip"
is "$(GIT_OBJECT_DIRECTORY="$TMP/Q" GIT_ALTERNATE_OBJECT_DIRECTORIES="$R/objects" \
	git --git-dir="$R" show "$tip:mm/r.c")" two "... with the series' files"

# without it, the same apply writes the branch (the developer's use)
lorebot apply --mbox q.mbox --repo "$R" --json >plain.json 2>plain.err
is "$?" 0 "without --quarantine: applied"
is "$(git --git-dir="$R" rev-parse "$(json plain.json "d['branch']")^{tree}")" \
	"$(json q.json "d['tree']")" "... the branch made, with the same tree"

# a quarantine reads the repository only: nothing that writes it
lorebot apply --mbox q.mbox --repo "$R" --quarantine "$TMP/Q" --fetch >f.out 2>f.err
is "$?" 2 "--quarantine with --fetch: a usage error (exit 2)"
like "$(cat f.err)" "--quarantine reads the repository only" "... saying why"
is "$(grep -c 'quarantine reads' f.err)" 1 "... once"
lorebot apply --mbox q.mbox --repo "$R" --quarantine "$TMP/Q" --export "$TMP/t" >e.out 2>e.err
is "$?" 2 "--quarantine with --export: a usage error (exit 2)"
newfile mm/s.c 100644 three | mkpatch other >other.mbox
lorebot apply --mbox other.mbox --repo "$R" --quarantine "$TMP/q.mbox" --json >n.json 2>n.err
is "$?" 3 "a quarantine that is a file: a repository error (exit 3)"
like "$(cat n.err)" "q.mbox" "... naming it"

done_testing

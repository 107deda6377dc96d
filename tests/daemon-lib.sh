# Helpers for the daemon tests (t09xx); source after lib.sh and lore-lib.sh.
#
#	make_series DIR NAME VERSION [PREV]   a 2-patch series against the mm-new
#	                                      stand-in, as git send-email would
#	                                      post it (Message-IDs, threading,
#	                                      base-commit); files in DIR/NAME-vV
#	deliver_dir DIR                       deliver every mail of DIR to the lab
#	mm_clone DEST                         a bare clone of the stand-in
#	mbox_state NAME                       a state directory $TMP/NAME (DB, OUT)
#	                                      with $TMP/series.mbox fetched
#	replied                               per version of $DB: the replies
#	                                      (kind/patch/state) made

mm_clone() {
	git clone -q --bare --shared "$(mm_repo)" "$1"
}

# The patches touch mm/ only: they build on every arch and boot as before.
# Made without a checkout (1.7 GB to write and remove; the sed of each file
# reads it from mm-new and the commits are written with an index of their
# own), as "git commit -a" in a checkout of mm-new would make them.
make_series() {
	_dir=$1 _name=$2 _v=$3
	_w=$TMP/work-$_name
	[ -d "$_w" ] || git clone -q --bare --shared "$(mm_repo)" "$_w"
	_head=$(git -C "$_w" rev-parse mm-new)
	_ms_commit "$_w" mm/madvise.c \
		"s|^ \*\tlinux/mm/madvise.c\$| *\tlinux/mm/madvise.c (${_name} v${_v})|" \
		"mm/madvise: name the ${_name} series v${_v}

A comment only.

Signed-off-by: lorebot test <test@lorebot.invalid>"
	_ms_commit "$_w" mm/mremap.c \
		"0,/^#include <linux\/mm.h>\$/s||#include <linux/mm.h>\n/* ${_name} v${_v} */|" \
		"mm/mremap: mark the ${_name} series v${_v}

Another comment.

Signed-off-by: lorebot test <test@lorebot.invalid>"
	git -C "$_w" update-ref "refs/heads/$_name" "$_head"
	_out=$_dir/$_name-v$_v
	rm -rf "$_out"
	_rr=
	[ "$_v" -gt 1 ] && _rr="--reroll-count=$_v"
	git -C "$_w" format-patch -q --cover-letter --thread --base=mm-new $_rr \
		--to=linux-mm@kvack.org --subject-prefix=PATCH -o "$_out" -2 "$_name" >/dev/null
	# a cover letter people would send: a title and some words
	for f in "$_out"/*0000-cover-letter.patch; do
		sed -i "s|\*\*\* SUBJECT HERE \*\*\*|mm: the ${_name} series|; s|\*\*\* BLURB HERE \*\*\*|Two small comments.|" "$f"
	done
}

# _ms_commit REPO FILE SED MESSAGE: a commit on $_head whose FILE is
# FILE of $_head through sed SED; $_head becomes it
_ms_commit() {
	_idx=$TMP/.make-series-index
	_blob=$(git -C "$1" cat-file blob "$_head:$2" | sed "$3" |
		git -C "$1" hash-object -w --stdin) || return 1
	rm -f "$_idx"
	GIT_INDEX_FILE=$_idx git -C "$1" read-tree "$_head" &&
	GIT_INDEX_FILE=$_idx git -C "$1" update-index --cacheinfo "100644,$_blob,$2" &&
	_tree=$(GIT_INDEX_FILE=$_idx git -C "$1" write-tree) &&
	_head=$(printf '%s\n' "$4" | git -C "$1" commit-tree -p "$_head" "$_tree") || return 1
	rm -f "$_idx"
}

deliver_dir() {
	for f in "$1"/*.patch; do
		"$LORE_LAB" deliver "$LAB" <"$f" || return 1
	done
}

# gen_series NAME [VERSION] [PATCHES] [DATE] > mbox: a series that applies to
# the stand-in, made without a checkout (tests/gen-series.py); the date is
# unix seconds (default 2026-01-01)
gen_series() {
	"$PY" "$LOREBOT_SRC/tests/gen-series.py" --repo "$(mm_repo)" --name "$1" \
		--version "${2:-1}" --patches "${3:-2}" --date "${4:-1767225600}" --mbox /dev/stdout
}

mbox_state() {
	mkdir -p "$TMP/$1"
	DB=$TMP/$1/lorebot.db
	OUT=$TMP/$1/outbox
	lorebot --db "$DB" fetch --mbox "$TMP/series.mbox" --list linux-mm >/dev/null
}

replied() {
	sql "SELECT v.title || ': ' || coalesce((SELECT group_concat(k, ' ') FROM
		(SELECT r.kind || '/' || r.patch || '/' || r.state AS k FROM replies r
		 WHERE r.version = v.id ORDER BY r.kind, r.patch)), '-')
		FROM versions v WHERE v.gone = 0 ORDER BY v.title"
}

#!/bin/sh
# Incremental assembly: a fetch assembles again only what its messages
# touch, and the tables it leaves are those `lorebot db rebuild` makes,
# whatever order and chunks the messages came in (one by one, replies
# before patches, v2 before v1, random chunks), patches without threading
# (grouped by sender, version and time) included.
# schedule: middle 6.8 (wall minutes in a full run: long ones start first)
. "${LOREBOT_SRC:-.}/tests/lib.sh"

L=$FIXTURES/lore
S=$FIXTURES/series
SPLIT=$LOREBOT_SRC/tests/split-mbox.py

# the assembled tables, one row a line (tests/series-dump.py)
dump() {
	"$PY" "$LOREBOT_SRC/tests/series-dump.py" "$1" "$2"
}

# feed NAME ORDER CONFIG MBOX...: a database filled chunk by chunk
feed() {
	name=$1 order=$2 conf=$3
	shift 3
	rm -rf "$TMP/$name.d" "$TMP/$name.db"
	"$PY" "$SPLIT" "$TMP/$name.d" "$order" "$@" >"$TMP/$name.chunks" || return 1
	while read -r c; do
		lorebot --config "$conf" --db "$TMP/$name.db" -v fetch --mbox "$c" \
			>/dev/null 2>>"$TMP/$name.log" || return 1
	done <"$TMP/$name.chunks"
}

# check NAME CONFIG ORDER... -- MBOX...: each order chunk by chunk,
# against db rebuild of the same database, and against a database that
# got the same messages in the same order in one fetch (what a message
# was stored after decides some things, the first sender of a change-id)
check() {
	set_name=$1 conf=$2
	shift 2
	orders=
	while [ "$1" != -- ]; do
		orders="$orders $1"
		shift
	done
	shift
	for order in $orders; do
		n=$set_name-$(echo "$order" | tr : -)
		feed "$n" "$order" "$conf" "$@"
		is "$?" 0 "$n: every chunk stored"
		cp "$TMP/$n.db" "$TMP/$n-re.db"
		out=$(lorebot --config "$conf" --db "$TMP/$n-re.db" db rebuild --json)
		is "$(echo "$out" | json - "d['changed']")" 0 "$n: db rebuild changes nothing"
		xargs cat <"$TMP/$n.chunks" >"$TMP/$n.all.mbox"
		lorebot --config "$conf" --db "$TMP/$n-once.db" fetch --mbox "$TMP/$n.all.mbox" \
			>/dev/null 2>&1
		# the four dumps in one start of Python (nothing writes to them now)
		"$PY" "$LOREBOT_SRC/tests/series-dump.py" "$TMP/$n.db" all "$TMP/$n.inc" \
			"$TMP/$n-re.db" all "$TMP/$n.re" "$TMP/$n.db" live "$TMP/$n.live" \
			"$TMP/$n-once.db" live "$TMP/$n-once.live"
		if cmp -s "$TMP/$n.inc" "$TMP/$n.re"; then
			ok "$n: incremental tables = db rebuild" true
		else
			ok "$n: incremental tables = db rebuild" false
			diff "$TMP/$n.inc" "$TMP/$n.re" | head -20 | cut -c1-200 | sed 's/^/# /'
		fi
		ok "$n: = the same messages in one fetch" cmp -s "$TMP/$n.live" "$TMP/$n-once.live"
	done
}

: >"$TMP/none.conf"
cat >"$TMP/trust.conf" <<EOF
[series]
	trust = akpm@linux-foundation.org
EOF

check lore "$TMP/none.conf" one reverse shuffle:1 shuffle:2 -- "$L/000_73a05b4700ab1a7a.mbox" \
	"$L/003_6100bb5053417aef.mbox" "$L/004_476fa21b8430df59.mbox" \
	"$S/cover-no-counter.mbox"
# the one-by-one database really was assembled piece by piece
ok "lore-one: fetches assembled only what they touched" \
	grep -q 'messages assembled again' "$TMP/lore-one.log"
ok "lore-one: a message of a thread of its own re-assembled nothing else" \
	grep -q 'series: 1 messages assembled again, 1 of them new' "$TMP/lore-one.log"

for f in change-id partial partial-other resend trailers trailers-more; do
	check "$f" "$TMP/none.conf" reverse shuffle:1 shuffle:2 -- "$S/$f.mbox"
done
check unthreaded "$TMP/none.conf" one reverse shuffle:1 shuffle:2 shuffle:3 -- \
	"$S/unthreaded.mbox"
check unthreaded-mixed "$TMP/none.conf" reverse shuffle:1 shuffle:2 -- "$S/unthreaded.mbox" \
	"$S/prolific.mbox" "$S/partial.mbox"
# a sender's sends of one version and count are followed only from patches
# threading did not place: a prolific sender's new series is its thread
lorebot --db "$TMP/prolific.db" fetch --mbox "$S/prolific.mbox" >/dev/null 2>&1
lorebot --db "$TMP/prolific.db" -v fetch --mbox "$S/prolific-news.mbox" >/dev/null \
	2>"$TMP/prolific.err"
like "$(cat "$TMP/prolific.err")" "series: 4 messages assembled again, 4 of them new" \
	"a prolific sender's new series: its own thread assembled again, not their other sends"
cp "$TMP/prolific.db" "$TMP/prolific-re.db"
dump "$TMP/prolific.db" all >"$TMP/prolific.inc"
lorebot --db "$TMP/prolific-re.db" db rebuild >/dev/null
dump "$TMP/prolific-re.db" all >"$TMP/prolific.re"
ok "and the tables are those of db rebuild" cmp -s "$TMP/prolific.inc" "$TMP/prolific.re"
check trusted "$TMP/trust.conf" one reverse shuffle:1 -- "$S/trusted.mbox"
check trusted-untrusted "$TMP/none.conf" one reverse shuffle:1 -- "$S/trusted.mbox"
# two contents under one Message-ID: which came first depends on the order
check reused "$TMP/none.conf" reverse shuffle:1 -- "$S/reused-msgid.mbox" "$S/reused-msgid-later.mbox"

# changing series.trust assembles everything again
lorebot --config "$TMP/trust.conf" --db "$TMP/trusted-untrusted-one.db" -v series --json \
	>"$TMP/t.json" 2>"$TMP/t.err"
like "$(cat "$TMP/t.err")" "every message assembled again" "series.trust changed: a full assembly"
is "$(json "$TMP/t.json" "[v['superseded_by'] for v in d['series'] if v['id'] == 'a1-0']")" \
	"['k1-0']" "and the trusted resend now supersedes"

# usage
lorebot --db "$TMP/lore-one.db" db frobnicate >/dev/null 2>&1
is "$?" 2 "db: an unknown subcommand is a usage error"
lorebot --db "$TMP/nothing.db" db rebuild >/dev/null 2>&1
is "$?" 2 "db rebuild: no database is a usage error"
# past series.memory (here from the first message on) the assembly lives
# in a scratch file, in fetches and in db rebuild alike: the same tables
cat >"$TMP/scratch.conf" <<EOF
[series]
	memory = 1
EOF
check scratch "$TMP/scratch.conf" one shuffle:1 -- "$L/000_73a05b4700ab1a7a.mbox" \
	"$L/003_6100bb5053417aef.mbox" "$L/004_476fa21b8430df59.mbox" \
	"$S/unthreaded.mbox" "$S/prolific.mbox" "$S/partial.mbox"
ok "scratch: the fetches assembled in a scratch file" \
	grep -q 'assembling in a scratch file' "$TMP/scratch-one.log"
dump "$TMP/scratch-shuffle-1.db" live >"$TMP/scratch.live"
feed memory shuffle:1 "$TMP/none.conf" "$L/000_73a05b4700ab1a7a.mbox" \
	"$L/003_6100bb5053417aef.mbox" "$L/004_476fa21b8430df59.mbox" \
	"$S/unthreaded.mbox" "$S/prolific.mbox" "$S/partial.mbox"
dump "$TMP/memory.db" live >"$TMP/memory.live"
ok "scratch: = the same chunks assembled in memory" cmp -s "$TMP/scratch.live" "$TMP/memory.live"
done_testing

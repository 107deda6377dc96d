#!/bin/sh
# The daemon's work for one poll that adds 10 messages, on an archive of
# MESSAGES (bench/gen-archive.py): the fetch child's storing of the news
# and its incremental assembly (what `lorebot fetch` does once the mbox is
# downloaded; the download itself is bench/lore.sh's), CPU (user + sys),
# wall and peak RSS from /usr/bin/time, each run on a fresh copy of the
# archive's database.  Also the same news assembled with a full rebuild
# (`lorebot db rebuild`), which is what every poll cost before.
#
#   bench/poll.sh [MESSAGES...]      default 10000 1000000
#
# LOREBOT (default build/lorebot); RUNS (default 5) polls per size;
# BENCH_DIR (default /var/tmp/lorebot-bench) keeps the archives between
# runs (an archive of 1,000,000 messages is about 3 GB of mbox and more
# of database; it is made once).
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
RUNS=${RUNS:-5}
DIR=${BENCH_DIR:-/var/tmp/lorebot-bench}
PY=/usr/bin/python3
mkdir -p "$DIR"
[ $# -gt 0 ] || set -- 10000 1000000

# time_it LABEL CMD...: one line "LABEL cpu wall rss"
time_it() {
	label=$1
	shift
	/usr/bin/time -f "%U %S %e %M" -o "$DIR/time.out" "$@" >/dev/null 2>"$DIR/cmd.err" ||
		{ cat "$DIR/cmd.err" >&2; exit 1; }
	awk -v l="$label" '{ printf "%s %.3f %.3f %d\n", l, $1 + $2, $3, $4 }' "$DIR/time.out"
}

for n in "$@"; do
	db=$DIR/archive-$n.db
	if [ ! -f "$db" ]; then
		$PY "$SRC/bench/gen-archive.py" "$n" "$DIR/archive-$n.mbox" "$DIR/news-$n.mbox"
		"$LOREBOT" --db "$db.tmp" fetch --mbox /dev/null >/dev/null 2>&1
		sqlite3 "$db.tmp" "INSERT INTO lists (name, url) VALUES ('linux-mm',
			'http://127.0.0.1/linux-mm/')"
		time_it "import-$n" "$LOREBOT" --db "$db.tmp" fetch --mbox "$DIR/archive-$n.mbox" \
			--list linux-mm
		rm -f "$DIR/archive-$n.mbox"
		mv "$db.tmp" "$db"
	fi
	versions=$(sqlite3 "$db" "SELECT count(*) FROM versions WHERE gone = 0")
	stored=$(sqlite3 "$db" "SELECT count(*) FROM messages")
	i=0
	while [ $i -lt "$RUNS" ]; do
		cp "$db" "$DIR/run.db"
		time_it "poll" "$LOREBOT" --db "$DIR/run.db" fetch --mbox "$DIR/news-$n.mbox" \
			--list linux-mm
		i=$((i + 1))
	done | sort -k2 -n | awk -v n="$stored" -v v="$versions" '{ c[NR] = $2; w[NR] = $3;
			if ($4 > r) r = $4 }
		END { m = int((NR + 1) / 2)
		      printf "poll of 10 messages, %d stored (%d versions): CPU median %.3f s" \
			" (min %.3f, max %.3f), wall median %.3f s (max %.3f), peak RSS %.1f MB," \
			" %d runs\n", n, v, c[m], c[1], c[NR], w[m], w[NR], r / 1024, NR }'
	cp "$db" "$DIR/run.db"
	"$LOREBOT" --db "$DIR/run.db" fetch --mbox "$DIR/news-$n.mbox" --list linux-mm \
		>/dev/null 2>&1
	time_it "full-rebuild-$n" "$LOREBOT" --db "$DIR/run.db" db rebuild
	rm -f "$DIR/run.db" "$DIR/run.db-wal" "$DIR/run.db-shm"
done

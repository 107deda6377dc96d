#!/bin/sh
# The daemon's work for one poll that adds 10 messages, on an archive of
# MESSAGES (bench/gen-archive.py): the fetch child's storing of the news
# and its incremental assembly (what `lorebot fetch` does once the mbox is
# downloaded; the download itself is bench/lore.sh's), CPU (user + sys),
# wall and peak RSS from /usr/bin/time, each run on a fresh copy of the
# archive's database.  Also the same news assembled with a full rebuild
# (`lorebot db rebuild`), which is what every poll cost before.  The
# sizes alternate run after run; one poll per size also under callgrind
# (instructions: what the machine's load does not change).
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
	# a database another build made: every message parsed again (the
	# parse is stamped with the version) and assembled in full, and
	# the migrations, once here, not in every poll
	version=$("$LOREBOT" --version)
	[ "$(cat "$db.version" 2>/dev/null)" = "$version" ] || {
		time_it "parsed again and assembled in full for $version, $n" \
			"$LOREBOT" --db "$db" db rebuild
		echo "$version" >"$db.version"
	}
done

# the sizes alternate, run after run: the machine's load hits them alike
i=0
while [ $i -lt "$RUNS" ]; do
	for n in "$@"; do
		cp "$DIR/archive-$n.db" "$DIR/run.db"
		time_it "$n" "$LOREBOT" --db "$DIR/run.db" fetch --mbox "$DIR/news-$n.mbox" \
			--list linux-mm
	done
	i=$((i + 1))
done >"$DIR/polls"
for n in "$@"; do
	db=$DIR/archive-$n.db
	versions=$(sqlite3 "$db" "SELECT count(*) FROM versions WHERE gone = 0")
	stored=$(sqlite3 "$db" "SELECT count(*) FROM messages")
	# instructions: callgrind, one poll
	cp "$db" "$DIR/run.db"
	ins=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$LOREBOT" --db "$DIR/run.db" \
		fetch --mbox "$DIR/news-$n.mbox" --list linux-mm 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
	awk -v n="$n" '$1 == n' "$DIR/polls" | sort -k2 -n |
		awk -v n="$stored" -v v="$versions" -v ins="$ins" '{ c[NR] = $2; w[NR] = $3;
			if ($4 > r) r = $4 }
		END { m = int((NR + 1) / 2)
		      # the wall times sorted on their own (insertion sort: a few runs)
		      for (i = 2; i <= NR; i++)
			for (j = i; j > 1 && w[j - 1] > w[j]; j--) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t }
		      printf "poll of 10 messages, %d stored (%d versions): CPU median %.3f s" \
			" (min %.3f, max %.3f), wall median %.3f s (max %.3f), peak RSS %.1f MB," \
			" %.1f M instructions, %d runs\n", n, v, c[m], c[1], c[NR], w[m], w[NR],
			r / 1024, ins / 1e6, NR }'
	cp "$db" "$DIR/run.db"
	"$LOREBOT" --db "$DIR/run.db" fetch --mbox "$DIR/news-$n.mbox" --list linux-mm \
		>/dev/null 2>&1
	time_it "full-rebuild-$n" "$LOREBOT" --db "$DIR/run.db" db rebuild
	rm -f "$DIR/run.db" "$DIR/run.db-wal" "$DIR/run.db-shm"
done

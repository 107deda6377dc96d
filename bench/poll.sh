#!/bin/sh
# The daemon's work for one poll that adds 10 messages, on an archive of
# MESSAGES (bench/gen-archive.py): the fetch child's storing of the news
# and its incremental assembly (what `lorebot fetch` does once the mbox is
# downloaded; the download itself is bench/lore.sh's), CPU (user + sys,
# the jail's helper included), wall and peak RSS from /usr/bin/time, each
# run on a fresh copy of the archive's database.  Also the same news
# assembled with a full rebuild (`lorebot db rebuild`), which is what
# every poll cost before.  The sizes alternate run after run; one poll
# per size also under callgrind (instructions: what the machine's load
# does not change) of the fetch process: callgrind cannot count the
# jail's helper (its parse of the 10 messages), whose root has nowhere to
# write the counts, and says so.  Every poll must have stored the 10
# messages, or the benchmark fails.  Last, the ratio of the last size to
# the first.
#
#   bench/poll.sh [MESSAGES...]      default 10000 1000000
#
# LOREBOT (default build/lorebot); RUNS (default 5) polls per size;
# BENCH_DIR (default /var/tmp/lorebot-bench) keeps the archives between
# runs (an archive of 1,000,000 messages is about 3 GB of mbox and more
# of database; it is made once, under nice).  BENCH_TINY=1: 1,000 and 2,000
# messages, one run.  REBUILD=0: no full rebuild.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$SRC/build/lorebot}
. "$SRC/bench/lib.sh"
RUNS=${RUNS:-5}
DIR=${BENCH_DIR:-/var/tmp/lorebot-bench}
PY=/usr/bin/python3
mkdir -p "$DIR"
if bench_tiny; then
	RUNS=1
	[ $# -gt 0 ] || set -- 1000 2000
fi
[ $# -gt 0 ] || set -- 10000 1000000
: >"$DIR/ins"
bench_header

# count DB: the messages stored
count() {
	sqlite3 "$1" "SELECT count(*) FROM messages"
}

# poll LABEL N WRAP...: the news into a fresh copy of archive N, checked
poll() {
	_l=$1 _n=$2
	shift 2
	cp "$DIR/archive-$_n.db" "$DIR/run.db"
	rm -f "$DIR/run.db-wal" "$DIR/run.db-shm"
	"$@" -o "$DIR/poll.out" -- "$LOREBOT" --db "$DIR/run.db" \
		fetch --mbox "$DIR/news-$_n.mbox" --list linux-mm
	_new=$(grep -c '^From mboxrd@z' "$DIR/news-$_n.mbox")
	grep -q "^linux-mm: $_new new messages" "$DIR/poll.out" ||
		bench_fail "$_l: the poll did not report $_new new messages: $(head -1 "$DIR/poll.out")"
	bench_expect "$_l: messages stored" "$(($(cat "$DIR/archive-$_n.count") + _new))" \
		"$(count "$DIR/run.db")"
}

for n in "$@"; do
	db=$DIR/archive-$n.db
	if [ ! -f "$db" ]; then
		nice -n 15 $PY "$SRC/bench/gen-archive.py" "$n" "$DIR/archive-$n.mbox" \
			"$DIR/news-$n.mbox" 2>/dev/null
		rm -f "$db.tmp"*
		bench_run "$LOREBOT" --db "$db.tmp" fetch --mbox /dev/null
		sqlite3 "$db.tmp" "INSERT INTO lists (name, url) VALUES ('linux-mm',
			'http://127.0.0.1/linux-mm/')"
		t=$(bench_time nice -n 15 "$LOREBOT" --db "$db.tmp" fetch \
			--mbox "$DIR/archive-$n.mbox" --list linux-mm)
		echo "import of $n: $t (wall s, CPU s, peak KB)"
		grep -c '^From mboxrd@z' "$DIR/archive-$n.mbox" >"$DIR/archive-$n.count"
		bench_expect "import of $n: messages stored" "$(cat "$DIR/archive-$n.count")" \
			"$(count "$db.tmp")"
		rm -f "$DIR/archive-$n.mbox"
		mv "$db.tmp" "$db"
	fi
	# a database another build made: its migrations, and the messages
	# parsed again if the parser changed (a fetch of nothing does both),
	# once here, not in every poll
	t=$(bench_time nice -n 15 "$LOREBOT" --db "$db" fetch --mbox /dev/null)
	echo "made ready for $("$LOREBOT" --version), $n: $t (wall s, CPU s, peak KB)"
done

# the sizes alternate, run after run: the machine's load hits them alike
i=0
: >"$DIR/polls"
while [ $i -lt "$RUNS" ]; do
	for n in "$@"; do
		t=$(poll "poll at $n" "$n" bench_time)
		echo "$n $t" >>"$DIR/polls"
	done
	i=$((i + 1))
done
for n in "$@"; do
	db=$DIR/archive-$n.db
	versions=$(sqlite3 "$db" "SELECT count(*) FROM versions WHERE gone = 0")
	stored=$(count "$db")
	ins=$(poll "poll at $n under callgrind" "$n" bench_ir -J)
	echo "$n $ins" >>"$DIR/ins"
	awk -v n="$n" '$1 == n' "$DIR/polls" | sort -k3 -n |
		awk -v n="$stored" -v v="$versions" -v ins="$ins" '{ c[NR] = $3; w[NR] = $2;
			if ($4 > r) r = $4 }
		END { m = int((NR + 1) / 2)
		      # the wall times sorted on their own (insertion sort: a few runs)
		      for (i = 2; i <= NR; i++)
			for (j = i; j > 1 && w[j - 1] > w[j]; j--) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t }
		      printf "poll of 10 messages, %d stored (%d versions): CPU median %.3f s" \
			" (min %.3f, max %.3f), wall median %.3f s (max %.3f), peak RSS %.1f MB," \
			" %.1f M instructions, %d runs\n", n, v, c[m], c[1], c[NR], w[m], w[NR],
			r / 1024, ins / 1e6, NR }'
	[ "${REBUILD:-1}" = 1 ] || continue
	poll "the news at $n before the full rebuild" "$n" bench_run
	t=$(bench_time "$LOREBOT" --db "$DIR/run.db" db rebuild)
	echo "full rebuild at $n: $t (wall s, CPU s, peak KB)"
	rm -f "$DIR/run.db" "$DIR/run.db-wal" "$DIR/run.db-shm"
done
# the last size against the first
first=$1
eval "last=\${$#}"
[ "$first" = "$last" ] || {
	awk -v a="$first" -v b="$last" '$1 == a { ia = $2 } $1 == b { ib = $2 }
		END { printf "ratio %d / %d stored: instructions %.2f", b, a, ib / ia }' "$DIR/ins"
	for n in "$first" "$last"; do
		awk -v n="$n" '$1 == n { print $3 }' "$DIR/polls" | sort -n |
			awk '{ c[NR] = $1 } END { print c[int((NR + 1) / 2)] }'
	done | paste -sd' ' | awk '{ printf ", CPU (medians) %.2f\n", ($1 > 0 ? $2 / $1 : 0) }'
}
rm -f "$DIR/ins" "$DIR/polls" "$DIR/poll.out"

#!/bin/sh
# Benchmark of lorebot check in a developer's tree (see bench/README.md,
# "lorebot check in a developer's tree"): a 10-patch branch of the 6.12
# stand-in - 004 1/4, the port of 004 2/4, and 8 patches to the largest
# mm files - checked
#  1. by lorebot check (all default checkers, checkpatch included),
#  2. by lorebot check without checkpatch (the range, the mails, the own
#     checkers on whole files), and with checkpatch alone,
#  3. by checkpatch.pl on the same patches one after another, with b4's
#     flags, after git format-patch: what "b4 prep --check" does (b4 0.13
#     and later; Debian 12 has b4 0.12, which has no --check),
#  4. by "b4 prep --check" itself when the installed b4 has it.
# Wall and CPU time (user + sys of lorebot and its children), medians.
#
# usage: bench/devcheck.sh [RUNS]      (LOREBOT=build/lorebot by default)
# Every run must exit 0 or 1 (findings) and print its summary (or
# checkpatch.pl its findings), or the benchmark fails.
# BENCH_TINY=1: 3 patches, one run of all checkers and of checkpatch.pl.
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
RUNS=${1:-9}
! bench_tiny || RUNS=1
MM=$(ci/mm-tree.sh)
export LOREBOT_CACHE
LOREBOT_CACHE=$(dirname "$MM")
TMP=$(mktemp -d /tmp/lorebot-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export HOME=$TMP GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="lorebot bench" GIT_AUTHOR_EMAIL=bench@lorebot.invalid
export GIT_COMMITTER_NAME="lorebot bench" GIT_COMMITTER_EMAIL=bench@lorebot.invalid

# measure CHECK CMD...: median of RUNS timed runs of a command that exits
# 0 or 1, wall and CPU (user + sys) in ms; after each, CHECK (a function)
# reads its output, $TMP/out
measure() {
	_chk=$1
	shift
	: >"$TMP/times"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		r=$(bench_time -s 0,1 -o "$TMP/out" -e "$TMP/err" "$@")
		"$_chk"
		echo "$r" | awk '{ printf "%d %d\n", $1 * 1000, $2 * 1000 }' >>"$TMP/times"
		i=$((i + 1))
	done
	wall=$(cut -d' ' -f1 "$TMP/times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	cpu=$(cut -d' ' -f2 "$TMP/times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
}
summary() {
	grep -q '^[0-9]* errors, [0-9]* warnings, [0-9]* notes$' "$TMP/out" ||
		bench_fail "lorebot check printed no summary: $(tail -3 "$TMP/out")"
}
# checkpatch.pl prints nothing for a clean patch: each exited 0 or 1
# (seq.sh), and none complained on stderr
checkpatch_pl() {
	[ ! -s "$TMP/err" ] || bench_fail "checkpatch.pl: $(tail -3 "$TMP/err")"
}

# the developer's repository: a clone with a 10-patch branch (made
# without a work tree: lorebot check does not need one)
R=$TMP/linux.git
git clone -q --bare --shared "$MM" "$R"
git --git-dir="$R" update-ref refs/heads/bench mm-new
idx=$TMP/index
GIT_INDEX_FILE=$idx git --git-dir="$R" read-tree mm-new

commit() {
	tree=$(GIT_INDEX_FILE=$idx git --git-dir="$R" write-tree)
	c=$(printf '%s\n\n%s\n\nSigned-off-by: lorebot bench <bench@lorebot.invalid>\n' "$1" "$2" |
		git --git-dir="$R" commit-tree "$tree" -p bench)
	git --git-dir="$R" update-ref refs/heads/bench "$c"
}

apply_mail() {
	sed -n '/^diff --git/,$p' "$1" >"$TMP/diff"
	GIT_INDEX_FILE=$idx git --git-dir="$R" apply --cached "$TMP/diff"
	commit "$2" "$3"
}

python3 - "$SRC/tests/fixtures/lore/004_476fa21b8430df59.mbox" >"$TMP/p1.mbox" <<'PY'
import mailbox, sys
for m in mailbox.mbox(sys.argv[1]):
    s = ' '.join(str(m['subject']).split())
    if not s.startswith('Re:') and ' 1/4]' in s:
        sys.stdout.buffer.write(m.as_bytes(unixfrom=True))
        break
PY
apply_mail "$TMP/p1.mbox" "mm: Set folio swapbacked iff folios are dirty in try_to_unmap_one" \
	"Only reset swapbacked when the folio is dirty and not droppable."
apply_mail tests/fixtures/devcheck/004-2-port-6.12.patch \
	"mm: Support tlbbatch flush for a range of PTEs" "Range handling for TLB batch flushing."

# 8 patches of about 40 lines to large mm files: a helper, a changed call
n=0
files="mm/memory.c mm/vmscan.c mm/huge_memory.c mm/page_alloc.c mm/khugepaged.c mm/madvise.c
	mm/swapfile.c mm/filemap.c"
! bench_tiny || files=mm/madvise.c	# 3 patches
for f in $files; do
	n=$((n + 1))
	git --git-dir="$R" show "bench:$f" >"$TMP/file"
	python3 - "$TMP/file" "$n" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
s = open(path).read()
helper = '''
/*
 * lorebot_bench_helper%(n)d() - count the pages of a range that are present
 * @mm: the address space
 * @start: first address
 * @end: end of the range
 * @nr: out: how many were counted
 *
 * Return: 0, or -EINVAL for an empty range.
 */
static int __maybe_unused lorebot_bench_helper%(n)d(struct mm_struct *mm,
		unsigned long start,
		unsigned long end,
		unsigned long *nr)
{
	unsigned long addr;

	if (start >= end)
		return -EINVAL;
	*nr = 0;
	for (addr = start; addr < end; addr += PAGE_SIZE) {
		if (!mm)
			break;
		(*nr)++;
	}
	return 0;
}
''' % {'n': n}
lines = s.split('\n')
# the helper goes before the middle function, a comment after the includes
mid = len(lines) // 2
while mid < len(lines) and not (lines[mid].startswith('static ') and lines[mid].endswith('(')
				 or (lines[mid].startswith('static ') and '(' in lines[mid])):
    mid += 1
lines[mid:mid] = helper.split('\n')
inc = max(i for i, l in enumerate(lines[:400]) if l.startswith('#include'))
lines[inc + 1:inc + 1] = ['/* lorebot bench: patch %d */' % n]
open(path, 'w').write('\n'.join(lines))
PY
	blob=$(git --git-dir="$R" hash-object -w "$TMP/file")
	GIT_INDEX_FILE=$idx git --git-dir="$R" update-index --cacheinfo "100644,$blob,$f"
	commit "${f%.c}: a helper counting present pages ($n)" "Patch $n of the benchmark series."
done
npatch=$((n + 2))
[ "$(git --git-dir="$R" rev-list --count mm-new..bench)" = $npatch ] ||
	bench_fail "not $npatch patches"
git --git-dir="$R" format-patch -q -o "$TMP/patches" mm-new..bench
lines=$(cat "$TMP"/patches/*.patch | wc -l)

bench_header
echo "$npatch patches, $lines lines of format-patch output"

bench_tiny || bench_run -s 0,1 "$LOREBOT" check --repo "$R" mm-new..bench	# warm checkpatch's cache
measure summary "$LOREBOT" check --repo "$R" mm-new..bench
all_wall=$wall
all_cpu=$cpu
own_wall=- own_cpu=- lcp_wall=- lcp_cpu=-
if bench_tiny; then
	bench_skip "lorebot check without checkpatch, and with checkpatch alone" \
		"the tiny mode runs all checkers once"
else
	measure summary "$LOREBOT" check --repo "$R" --checkers=-checkpatch mm-new..bench
	own_wall=$wall
	own_cpu=$cpu
	measure summary "$LOREBOT" check --repo "$R" --checkers=-all,checkpatch mm-new..bench
	lcp_wall=$wall
	lcp_cpu=$cpu
fi

mkdir -p "$TMP/scripts"
for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
	git --git-dir="$R" show "mm-new:scripts/$f" >"$TMP/scripts/$f"
done
cat >"$TMP/seq.sh" <<SEQ
#!/bin/sh
rm -rf "$TMP/fp"
git --git-dir="$R" format-patch -q -o "$TMP/fp" mm-new..bench
for f in "$TMP"/fp/*.patch; do
	GIT_DIR="$R" perl "$TMP/scripts/checkpatch.pl" -q --terse --no-summary \
		--mailback --showfile --no-tree "\$f" || [ \$? = 1 ] || exit 2
done
SEQ
measure checkpatch_pl sh "$TMP/seq.sh"
cp_wall=$wall
cp_cpu=$cpu

echo "lorebot check, all checkers:      median wall $all_wall ms, cpu $all_cpu ms"
echo "lorebot check, without checkpatch: median wall $own_wall ms, cpu $own_cpu ms"
echo "lorebot check, checkpatch only:    median wall $lcp_wall ms, cpu $lcp_cpu ms"
echo "format-patch + checkpatch.pl x$npatch:  median wall $cp_wall ms, cpu $cp_cpu ms"
awk -v a="$all_wall" -v b="$cp_wall" -v c="$all_cpu" -v d="$cp_cpu" \
	'BEGIN { printf "ratio lorebot / checkpatch.pl:    wall %.2fx, cpu %.2fx\n", a / b, c / d }'
if b4 prep --help 2>/dev/null | grep -q -- '--check'; then
	echo "b4 prep --check: run it on a b4 prep branch of the same patches (not scripted)"
else
	echo "b4 prep --check: not in b4 $(b4 --version 2>/dev/null) (b4 0.13 added it); see checkpatch.pl x10"
fi

#!/bin/sh
# The cost of lorebot's kernel builds (see bench/README.md, "Kernel builds"):
# per arch, the one-time base build (empty ccache, then warm ccache) and
# the incremental cost of one patch touching only mm/*.c and of one
# touching an arch header, each as a ratio of the full build.
#
# usage: bench/build.sh [ARCH...]        (default: x86_64 arm64 riscv)
# env:   LOREBOT    the binary (default build/lorebot)
#        BENCH_DIR  work directory (default /var/tmp/lorebot-bench-build),
#                   removed first: its cache starts empty
#        PROFILE    build profile (default small)
# A build that does not end (exit 0, or 1 for diagnostics; 3 is an
# infrastructure failure) fails the benchmark.  BENCH_TINY=1: nothing is
# built (hours of the three arches from an empty cache; the test says so).
set -eu
cd "$(dirname "$0")/.."
LOREBOT=${LOREBOT:-$PWD/build/lorebot}
. bench/lib.sh
if bench_tiny; then
	bench_skip "every build" "the three arches from an empty ccache take hours, not the tiny mode"
	exit 0
fi
W=${BENCH_DIR:-/var/tmp/lorebot-bench-build}
PROFILE=${PROFILE:-small}
archs=${*:-x86_64 arm64 riscv}

rm -rf "$W"
mkdir -p "$W"
export LOREBOT_CACHE=$W/cache
repo=$W/repo.git
git clone -q --bare --shared "$(ci/mm-tree.sh)" "$repo"
printf '[build]\n\tprofile = %s\n\tjobs = 2\n\ttimeout = 3h\n' "$PROFILE" >"$W/bot.conf"

# commit BRANCH MESSAGE FILE...: append a line to each file, on mm-new
commit() {
	branch=$1 msg=$2
	shift 2
	idx=$W/index
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git -C "$repo" read-tree mm-new
	for f in "$@"; do
		blob=$( { git -C "$repo" show "mm-new:$f"; printf '\n/* %s */\n' "$msg"; } |
			git -C "$repo" hash-object -w --stdin)
		GIT_INDEX_FILE=$idx git -C "$repo" update-index --cacheinfo "100644,$blob,$f"
	done
	tree=$(GIT_INDEX_FILE=$idx git -C "$repo" write-tree)
	c=$(echo "$msg" | GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@lorebot.invalid \
		GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@lorebot.invalid \
		git -C "$repo" commit-tree -p mm-new "$tree")
	git -C "$repo" update-ref "refs/heads/$branch" "$c"
}

commit bench-mm "bench: touch mm/rmap.c and mm/memory.c" mm/rmap.c mm/memory.c
commit bench-hdr-x86_64 "bench: touch an x86 header" arch/x86/include/asm/tlbflush.h
commit bench-hdr-arm64 "bench: touch an arm64 header" arch/arm64/include/asm/tlbflush.h
commit bench-hdr-riscv "bench: touch a riscv header" arch/riscv/include/asm/tlbflush.h

run() {
	# run NAME ARCH RANGE: one lorebot build, its JSON kept
	bench_run -s 0,1 -o "$W/$1-$2.json" "$LOREBOT" --config "$W/bot.conf" build \
		--repo "$repo" --range "$3" --arch "$2" --log-dir "$W/logs/$1-$2" --json
}

bench_header
for a in $archs; do
	echo "bench: $a: base build with an empty ccache, then the mm/*.c patch" >&2
	run mm "$a" mm-new..bench-mm
	echo "bench: $a: the arch header patch" >&2
	run hdr "$a" "mm-new..bench-hdr-$a"
	echo "bench: $a: base build again with a warm ccache" >&2
	rm -rf "$W/cache/builds/$a"
	run warm "$a" mm-new..bench-mm
done

python3 - "$W" $archs <<'PY'
import json, sys
w, archs = sys.argv[1], sys.argv[2:]
def load(name, a):
    return json.load(open(f"{w}/{name}-{a}.json"))["archs"][0]
def rate(h, m):
    return f"{100 * h / (h + m):.0f}%" if h + m else "-"
print("| arch | base, empty ccache | base, warm ccache (hits) | mm/*.c patch | ratio | arch header patch | ratio |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for a in archs:
    mm, hdr, warm = load("mm", a), load("hdr", a), load("warm", a)
    full = mm["base"]["seconds"]
    p, h = mm["patches"][0], hdr["patches"][0]
    print(f"| {a} | {full:.0f} s | {warm['base']['seconds']:.0f} s "
          f"({rate(warm['base']['ccache_hits'], warm['base']['ccache_misses'])}) "
          f"| {p['seconds']:.1f} s, {p['rebuilt']} objects, ccache {rate(p['ccache_hits'], p['ccache_misses'])} "
          f"| {100 * p['seconds'] / full:.1f}% "
          f"| {h['seconds']:.1f} s, {h['rebuilt']} objects, ccache {rate(h['ccache_hits'], h['ccache_misses'])} "
          f"| {100 * h['seconds'] / full:.1f}% |")
    for name, r in (("mm", mm), ("hdr", hdr), ("warm", warm)):
        if r["status"] not in ("ok", "warnings"):
            sys.exit(f"bench build: FAILED: {a} {name}: status {r['status']} {r.get('infra')}")
PY

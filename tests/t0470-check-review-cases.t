#!/bin/sh
# The real review cases (tests/fixtures/check/review-cases/, from the
# project's shared material; INDEX.md says where each comes from): every
# FLAG case is reported by its rule on the lines INDEX.md names
# (lines.tsv) and nowhere else, no NO-FLAG case draws a warning or an
# error of its rule; from the hunks alone, and again with the 6.12
# stand-in as the tree (the cases that do not apply to it are checked from
# their hunks there too, as lorebot check does).  TP/ holds real mainline
# lazyfree bugs, their fix and two probes that need the whole file.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

RC=$FIXTURES/check/review-cases

# verdict MODE CASE RULE FLAG JSON: one TAP line
verdict() {
	"$PY" - "$RC/lines.tsv" "$@" <<'PY'
import json, sys
lines_tsv, mode, case, rule, flag, path = sys.argv[1:7]
want = {}
for l in open(lines_tsv):
    if l.startswith("#") or not l.strip():
        continue
    c, f, ls = l.rstrip("\n").split("\t")
    want[c] = (f, set(int(x) for x in ls.split()))
d = json.load(open(path))
got = [(x["file"], x["line"]) for x in d["findings"]
       if x["rule"] == rule and x["severity"] != "note"]
if flag == "True":
    f, ls = want[case]
    bad = [g for g in got if g[0] != f or g[1] not in ls]
    good = got and not bad
    print("%s %s %s: %s" % ("ok" if good else "not ok", mode, case,
          "found at %s" % ", ".join("%s:%d" % g for g in got) if good else
          "findings %s, want %s:%s" % (got, f, sorted(ls))))
else:
    print("%s %s %s: %s" % ("not ok" if got else "ok", mode, case,
          "flagged %s" % got if got else "not flagged"))
PY
}

run_cases() {
	mode=$1
	shift
	for m in "$RC"/[abc]*.mbox; do
		case=$(basename "$m" .mbox)
		set -- $("$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))[sys.argv[2] + ".mbox"]
print(d["rule"], d["flag"])' "$RC/expected.json" "$case")
		lorebot check --mbox "$m" --json --checkers="-all,$1" $REPO \
			>"$TMP/$mode-$case.json" 2>"$TMP/$mode-$case.err"
		verdict "$mode" "$case" "$1" "$2" "$TMP/$mode-$case.json" >>"$TMP/$mode.tap"
	done
	while read -r line; do
		case $line in
		ok*) ok "${line#ok }" true ;;
		*) ok "${line#not ok }" false ;;
		esac
	done <"$TMP/$mode.tap"
	is "$(grep -c '^ok.*: found at' "$TMP/$mode.tap")" 8 "$mode: 8 of 8 FLAG cases found"
	is "$(grep -c '^ok.*: not flagged' "$TMP/$mode.tap")" 13 "$mode: 0 of 13 NO-FLAG cases flagged"
}

# tp MODE: TP/expect.tsv (mode any: with or without a tree; tree: with one)
tp() {
	grep -v '^#' "$RC/TP/expect.tsv" >"$TMP/tp.tsv"
	while IFS='	' read -r mbox rule when want why; do
		[ "$1" = hunks ] && [ "$when" = tree ] && continue
		n=$(lorebot check --mbox "$RC/TP/$mbox.mbox" --json --checkers="-all,$rule" \
			$REPO 2>/dev/null | json - 'sum(1 for f in d["findings"] if f["severity"] != "note")')
		if [ "$want" = flag ]; then
			ok "$1 TP $mbox: $want ($n findings)" test "$n" -gt 0
		else
			ok "$1 TP $mbox: $want ($n findings)" test "$n" = 0
		fi
	done <"$TMP/tp.tsv"
}

REPO=
run_cases hunks
tp hunks

MM=$(mm_repo) || { skip "no mm tree (ci/mm-tree.sh): the cases with a tree"; done_testing; exit; }
R=$TMP/linux.git
git clone -q --bare --shared "$MM" "$R" || { skip "cannot clone $MM"; done_testing; exit; }
export LOREBOT_CACHE=$TMP/cache
REPO="--repo $R"
run_cases tree
# which of them the tree has: those that apply to it, checked as whole files
applied=$(for m in "$RC"/[abc]*.mbox; do
	json - 'all(p["applied"] for s in d["series"] for p in s["patches"])' \
		<"$TMP/tree-$(basename "$m" .mbox).json" | grep -q True && basename "$m" .mbox
done | tr '\n' ' ')
like "$applied" "a04 a07 a09 b01 b02 b03 b04 c01 c02 c03 c04 c05" \
	"tree: the cases that apply to the 6.12 stand-in were read as whole files"
tp tree
done_testing

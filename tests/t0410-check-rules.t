#!/bin/sh
# The rules on hand-written cases: tests/fixtures/check/cases/<rule>/*.case
# Each case says what it expects ("expect: RULE FILE:LINE SEVERITY" per
# finding, or "expect: none"); only the case's rule runs, and it must
# report exactly that.  Every rule has at least as many negative cases as
# positive ones: false positives are worse than misses.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

C=$FIXTURES/check
mkdir -p "$TMP/mbox" "$TMP/out"
python3 "$C/case2mbox.py" --out "$TMP/mbox" "$C"/cases/*/*.case
is "$?" 0 "the cases convert to patch mails"

RULES=$(cd "$C/cases" && ls)
for rule in $RULES; do
	for case in "$C/cases/$rule"/*.case; do
		name=$(basename "$case" .case)
		args=$(sed -n 's/^args: //p' "$case")
		# shellcheck disable=SC2086
		lorebot check --mbox "$TMP/mbox/$name.mbox" --json \
			--checkers="-all,$rule" $args >"$TMP/out/$name.json" 2>"$TMP/out/$name.err"
		echo $? >"$TMP/out/$name.rc"
	done
done

# one python for all comparisons: "rule/case|exit|got|want|positive"
python3 - "$C/cases" "$TMP/out" >"$TMP/results" <<'PY'
import glob, json, os, sys
cases, out = sys.argv[1], sys.argv[2]
for case in sorted(glob.glob(cases + "/*/*.case")):
    rule = os.path.basename(os.path.dirname(case))
    name = os.path.splitext(os.path.basename(case))[0]
    lines = open(case).read().split("\n")
    want = sorted(l[8:].strip() for l in lines if l.startswith("expect: ")
                  and l.strip() != "expect: none")
    sugg = [l[10:] for l in lines if l.startswith("suggests: ")]
    rc = open(os.path.join(out, name + ".rc")).read().strip()
    try:
        d = json.load(open(os.path.join(out, name + ".json")))
        def where(f):
            return "%s:%d" % (f["file"], f["line"]) if f["file"] else \
                   "COMMIT_MSG:%d" % f["line"]
        got = sorted("%s %s %s" % (f["rule"], where(f), f["severity"])
                     for f in d["findings"])
        have = [f.get("suggestion") for f in d["findings"]]
        for s in sugg:
            if s == "none":
                ok = not any(have)
            else:
                ok = any(h and s in h for h in have)
            if not ok:
                got.append("suggestion %r not as expected: %r" % (s, have))
    except Exception as e:
        got = ["no JSON: %s" % e]
    print("%s/%s|%s|%s|%s|%d" % (rule, name, rc, "; ".join(got), "; ".join(want),
                                 1 if want else 0))
PY

while IFS='|' read -r name rc got want positive; do
	is "$got" "$want" "$name"
	case $rc in
	0|1) ;;
	*) is "$rc" "0 or 1" "$name: exit status" ;;
	esac
done <"$TMP/results"

for rule in $RULES; do
	pos=$(grep -c "^$rule/.*|1\$" "$TMP/results")
	neg=$(grep -c "^$rule/.*|0\$" "$TMP/results")
	ok "$rule: $neg negative cases >= $pos positive cases" test "$neg" -ge "$pos"
	ok "$rule: has positive cases" test "$pos" -gt 0
done
done_testing

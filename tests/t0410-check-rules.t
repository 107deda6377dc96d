#!/bin/sh
# The rules on hand-written cases: tests/fixtures/check/cases/<rule>/*.case
# Each case says what it expects ("expect: RULE FILE:LINE SEVERITY" per
# finding, or "expect: none"); only the case's rule runs, and it must
# report exactly that.  Every rule has at least as many negative cases as
# positive ones: false positives are worse than misses.
#
# The cases of a rule are checked in one run, one series each (case2mbox.py
# --batch); those with their own options or sender (args:, from:) alone.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

C=$FIXTURES/check
mkdir -p "$TMP/mbox" "$TMP/out"
RULES=$(cd "$C/cases" && ls)
"$PY" "$C/case2mbox.py" --all "$TMP/mbox" "$C/cases"
is "$?" 0 "the cases convert to patch mails"

for rule in $RULES; do
	if [ -e "$TMP/mbox/$rule.batch" ]; then
		lorebot check --mbox "$TMP/mbox/$rule.batch" --json --checkers="-all,$rule" \
			>"$TMP/out/$rule.batch.json" 2>"$TMP/out/$rule.batch.err"
		echo $? >"$TMP/out/$rule.batch.rc"
	fi
	for case in "$C/cases/$rule"/*.case; do
		name=$(basename "$case" .case)
		[ -e "$TMP/mbox/$name.mbox" ] || continue
		args=$(sed -n 's/^args: //p' "$case")
		# shellcheck disable=SC2086
		lorebot check --mbox "$TMP/mbox/$name.mbox" --json \
			--checkers="-all,$rule" $args >"$TMP/out/$name.json" 2>"$TMP/out/$name.err"
		echo $? >"$TMP/out/$name.rc"
	done
done

# one python for all comparisons: "rule/case|exit|got|want|positive"
"$PY" - "$C/cases" "$TMP/mbox" "$TMP/out" >"$TMP/results" <<'PY'
import glob, json, os, re, sys
cases, mbox, out = sys.argv[1], sys.argv[2], sys.argv[3]

def where(f):
    # "line" is null where no line applies: written ":0" in the cases
    return "%s:%d" % (f["file"], f["line"] or 0) if f["file"] else "COMMIT_MSG:%d" % (f["line"] or 0)

# the findings of each case: its own run, or its series in the batch
got, rcs = {}, {}
for b in glob.glob(os.path.join(out, "*.batch.json")):
    rule = os.path.basename(b)[:-len(".batch.json")]
    names = open(os.path.join(mbox, rule + ".batch.names")).read().split()
    rc = open(b[:-5] + ".rc").read().strip()
    try:
        d = json.load(open(b))
    except Exception as e:
        d = {"series": [], "findings": []}
    index = {}
    for k, s in enumerate(d["series"]):
        m = re.search(r"\[PATCH case-(\d+)[] ]", s["patches"][0]["subject"])
        if m:
            index[k] = names[int(m.group(1))]
    for n in names:
        got[(rule, n)] = []
        rcs[(rule, n)] = rc
    for f in d["findings"]:
        got[(rule, index.get(f["series"], "?"))].append(f)
    for k, n in enumerate(names):
        if k not in index.values() and n not in index.values():
            got[(rule, n)] = None	# its series went missing
for j in glob.glob(os.path.join(out, "*.json")):
    if j.endswith(".batch.json"):
        continue
    name = os.path.basename(j)[:-5]
    rule = os.path.basename(os.path.dirname(glob.glob(os.path.join(cases, "*", name + ".case"))[0]))
    rcs[(rule, name)] = open(j[:-5] + ".rc").read().strip()
    try:
        got[(rule, name)] = json.load(open(j))["findings"]
    except Exception:
        got[(rule, name)] = None

for case in sorted(glob.glob(cases + "/*/*.case")):
    rule = os.path.basename(os.path.dirname(case))
    name = os.path.splitext(os.path.basename(case))[0]
    lines = open(case).read().split("\n")
    want = sorted(l[8:].strip() for l in lines if l.startswith("expect: ")
                  and l.strip() != "expect: none")
    sugg = [l[10:] for l in lines if l.startswith("suggests: ")]
    fs = got.get((rule, name))
    if fs is None:
        g = ["no findings list: the case was not checked"]
    else:
        g = sorted("%s %s %s" % (f["rule"], where(f), f["severity"]) for f in fs)
        have = [f.get("suggestion") for f in fs]
        for s in sugg:
            ok = not any(have) if s == "none" else any(h and s in h for h in have)
            if not ok:
                g.append("suggestion %r not as expected: %r" % (s, have))
    print("%s/%s|%s|%s|%s|%d" % (rule, name, rcs.get((rule, name), "?"), "; ".join(g),
                                 "; ".join(want), 1 if want else 0))
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

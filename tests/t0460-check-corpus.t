#!/bin/sh
# A sample of the corpus (bench/corpus/): real merged mm patches must draw
# no finding from the mm rules that is not judged a real problem in
# bench/corpus/judged.tsv, and the real problems reviewers named
# (reviewed.tsv, the patches kept in reviewed.mbox.gz) must be reported.
# The whole corpus is bench/corpus/run.py's.
. "${LOREBOT_SRC:-.}/tests/lib.sh"

K=$LOREBOT_SRC/bench/corpus
RULES=lazyfree-droppable,progress-accounting,one-line-args,pte-map-null,pte-unmap-exit,rcu-unlock-exit,unlock-exit,atomic-sleep,lock-assert
# every 6th merged patch: 45 of 270
"$PY" - "$K" "$TMP" <<'PY' || skip_all "cannot read the corpus"
import gzip, mailbox, os, sys
k, tmp = sys.argv[1], sys.argv[2]
for name, step in (("merged", 6), ("reviewed", 1)):
    raw = os.path.join(tmp, name + ".mbox")
    open(raw, "wb").write(gzip.open(os.path.join(k, name + ".mbox.gz")).read())
    os.makedirs(os.path.join(tmp, name))
    for i, m in enumerate(mailbox.mbox(raw)):
        if i % step == 0:
            with open(os.path.join(tmp, name, "%03d.mbox" % i), "wb") as f:
                f.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.as_bytes())
PY
for set in merged reviewed; do
	for f in "$TMP/$set"/*.mbox; do
		lorebot check --mbox "$f" --json --checkers="-all,$RULES" \
			>"${f%.mbox}.json" 2>/dev/null
	done
done
is "$(ls "$TMP"/merged/*.json | wc -l)" 45 "45 merged patches checked"

"$PY" - "$K" "$TMP" >"$TMP/verdicts" <<'PY'
import glob, json, os, sys
k, tmp = sys.argv[1], sys.argv[2]
judged = {}
for l in open(os.path.join(k, "judged.tsv")):
    if not l.startswith("#"):
        m, r, w, v = l.split("\t")[:4]
        judged[(m, r, w)] = v
msgids = {}
for f in glob.glob(os.path.join(tmp, "*", "*.mbox")):
    for l in open(f, errors="replace"):
        if l.lower().startswith("message-id:"):
            msgids[f[:-5] + ".json"] = l.split(":", 1)[1].strip()
            break
for f in sorted(glob.glob(os.path.join(tmp, "*", "*.json"))):
    d = json.load(open(f))
    for x in d["findings"]:
        where = "%s:%d" % (x["file"], x["line"])
        v = judged.get((msgids[f], x["rule"], where), "unjudged")
        print("%s %s %s %s %s" % (os.path.basename(os.path.dirname(f)), v,
                                  x["rule"], where, msgids[f]))
        # never on a comment, never naming nothing ("'' from ...")
        q = (x.get("quote") or "").split("\n")[0].strip()
        # " * text" is a comment, "*ptr = x" is code
        if q.startswith(("/*", "//", "*/", "* ", "*\t")) or q == "*" or \
                "''" in x["message"]:
            print("malformed %s %s %s" % (x["rule"], where, msgids[f]))
PY
is "$(grep '^merged' "$TMP/verdicts" | grep -cv ' true ')" 0 \
	"merged: every mm-rule finding is one judged real (none unjudged, none false)"
for want in "rcu-unlock-exit kernel/cgroup/drm.c:321" "lock-assert mm/swap_state.c:152"; do
	like "$(grep '^reviewed' "$TMP/verdicts")" "$want" \
		"reviewed: the problem the review named is reported: $want"
done
is "$(grep -c '^reviewed' "$TMP/verdicts")" 2 "reviewed: and nothing else"
is "$(grep -c '^malformed' "$TMP/verdicts")" 0 "no finding on a comment or naming nothing"
done_testing

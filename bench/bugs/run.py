#!/usr/bin/env python3
"""The benchmark of real mm bugs: does each rule find them, at the right line,
and what does it say about merged patches?

usage: run.py [--jobs N] [--json OUT] [--merged-only] [--bugs-only] [--list]
              [--heldout | --heldout2 | --heldout3 | --heldout4] [--tree]

bugs.tsv lists the bugs: the patch that brought each one in (as posted, or
the commit), the lines a correct finding points at, its fix, the sources
(Message-IDs, commit ids).  Every intro is checked alone with its rule,
from its hunks (lorebot check --mbox, no tree: the bases of these patches
are not the 6.12 stand-in); "function" items are a whole function as a
report quoted it, checked as such.  A bug is found when a warning or
error of its rule is on one of its lines; else the miss says why (a
"not decidable from the hunks" note of the rule, or nothing).  The fix,
when there is one, must draw nothing of the rule.

The merged patches (bench/corpus/merged.mbox.gz, the 2022-2024 patches of
three list archives in Linux 6.12; merged-shared.mbox.gz, set A of the
project's shared corpus, 2023-2024, merged; the fixes of the bugs) are
checked with every mm rule; each warning or error is looked up in the
judged lists (bench/corpus/judged.tsv, judged.tsv here): a finding judged
a real problem or a correct nit is no false alarm, one judged false or not
judged is.

The bugs are split by the date their patch was posted: the older half is
what the rules were designed on, the newer half is what is reported.
seen.tsv names the bugs a rule was designed or changed with in view; the
newer half is counted again without them ("held out").

--heldout runs the held-out set instead (heldout.tsv: bugs collected after
the rules were frozen, no rule made or changed on them; the mm patches
posted in its window, heldout-posted.mbox.gz, judged in heldout-judged.tsv)
and prints one table, no halves.

--heldout2 runs held-out set 2 (heldout2.tsv: bugs of 2024-2026 collected
and committed before its first run) against the merged patches of the
default run (the false-alarm set), in the same one table.

--heldout3 runs held-out set 3 (heldout3.tsv: bugs of 2025-2026 collected
and committed before its first run) the same way as --heldout2.

--heldout4 runs held-out set 4 (heldout4.tsv: bugs of 2025-2026 collected
and committed before its first run) the same way as --heldout2.

--tree checks as the daemon and `lorebot check` on a branch do, with
whole files: each bug's patch becomes a commit of the 6.12 stand-in
(ci/mm-tree.sh; MM_GIT for another) where `git apply` takes it, else of
the stand-in with the files trees/ID/ holds at their pre-image, with
the patch's hunks to those files (trees/README.md says how each file
was rebuilt, and checked against the blob its patch names), and
is checked with `lorebot check --repo STAND-IN BASE..COMMIT`; a finding's
line is mapped back to the mail's numbering by the offsets `git apply`
reports per hunk.  A fix is placed on top of its bug's commit.  A merged
patch becomes the stand-in with it taken out (git apply -R) and put
back.  What fits neither is checked from its hunks, as without --tree;
the tables say which was which.

LOREBOT (default build/lorebot) is the binary.
"""
import argparse
import collections
import concurrent.futures
import gzip
import json
import mailbox
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
LOREBOT = os.environ.get("LOREBOT", os.path.join(TOP, "build", "lorebot"))
MM_RULES = ("lazyfree-droppable", "progress-accounting", "one-line-args",
            "pte-map-null", "pte-unmap-exit", "rcu-unlock-exit", "unlock-exit",
            "atomic-sleep", "lock-assert")
MERGED = (os.path.join(TOP, "bench", "corpus", "merged.mbox.gz"),
          os.path.join(HERE, "merged-shared.mbox.gz"))
JUDGED = [os.path.join(TOP, "bench", "corpus", "judged.tsv"),
          os.path.join(HERE, "judged-shared.tsv"),
          os.path.join(HERE, "judged.tsv")]


def load_bugs(name="bugs.tsv"):
    bugs = []
    for line in open(os.path.join(HERE, name)):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        b = dict(zip(("id", "date", "rule", "mode", "intro", "where", "fix",
                      "source", "collected"), f))
        b["where"] = set(b["where"].split(","))
        bugs.append(b)
    return bugs


def load_seen():
    """ids of the bugs a rule was designed or changed with in view"""
    seen = {}
    for line in open(os.path.join(HERE, "seen.tsv")):
        if line.startswith("#") or not line.strip():
            continue
        i, _, why = line.rstrip("\n").partition("\t")
        seen[i] = why
    return seen


def load_judged():
    j = {}
    for path in JUDGED:
        if not os.path.exists(path):
            continue
        for line in open(path):
            if line.startswith("#") or not line.strip():
                continue
            msgid, rule, where, verdict = (line.rstrip("\n").split("\t") + [""] * 4)[:4]
            j[(msgid, rule, where)] = verdict
    return j


def one_mail(spec, tmp, n):
    """spec: a path (relative to the top) of an mbox, with #Message-ID for
    one message of it; a one-message mbox file in tmp"""
    path, _, msgid = spec.partition("#")
    path = os.path.join(TOP, path)
    if not msgid and not path.endswith(".gz"):
        return path
    raw = os.path.join(tmp, "src-%d.mbox" % n)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f, open(raw, "wb") as o:
        o.write(f.read())
    for m in mailbox.mbox(raw):
        if not msgid or str(m["Message-ID"]).strip() == msgid:
            out = os.path.join(tmp, "one-%d.mbox" % n)
            with open(out, "wb") as o:
                o.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.as_bytes())
            return out
    sys.exit("no %s in %s" % (msgid, path))


# Findings that are wrong whatever they are about (issue 40): on a comment
# line, or naming nothing ("'' from pte_offset_map()")
MALFORMED = []


def malformed(x):
    q = (x.get("quote") or "").split("\n")[0].strip()
    # " * text" is a comment; "*ptr = x" is code
    if q.startswith(("/*", "//", "*/")) or q == "*" or q.startswith(("* ", "*\t")):
        return "on a comment"
    if "''" in x["message"] or '""' in x["message"] or "'()'" in x["message"]:
        return "names nothing"
    return None


def lorebot_check(what, rules, name, placed=None):
    """lorebot check WHAT --json with rules; findings on a comment or
    naming nothing into MALFORMED; placed: lines mapped to the mail's"""
    r = subprocess.run([LOREBOT, "check"] + what +
                       ["--json", "--checkers=-all," + ",".join(rules)],
                       capture_output=True)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        return {"findings": [], "error": r.stderr.decode(errors="replace")}
    for x in d["findings"]:
        if placed and x.get("file") and x.get("line"):
            x["tree_line"] = x["line"]
            x["line"] = placed.to_mail(x["file"], x["line"])
        why = x["rule"] in MM_RULES and malformed(x)
        if why:
            MALFORMED.append("%s %s:%s (%s): %s" % (x["rule"], x["file"], x["line"],
                                                   why, name))
    return d


def check(path, rules):
    return lorebot_check(["--mbox", path], rules, os.path.basename(path))


# --tree: the 6.12 stand-in (ci/mm-tree.sh), a bare clone of it in the
# temporary directory, each patch a commit of its own on mm-new
STAND_IN = {}
HUNK_AT = re.compile(r"^Hunk #(\d+) succeeded at \d+(?: \(offset (-?\d+) lines?\))?")


def stand_in(tmp):
    if not STAND_IN:
        src = os.environ.get("MM_GIT") or subprocess.run(
            [os.path.join(TOP, "ci", "mm-tree.sh")], capture_output=True, text=True,
            check=True).stdout.strip()
        repo = os.path.join(tmp, "612.git")
        subprocess.run(["git", "clone", "-q", "--bare", "--shared", src, repo], check=True)
        base = subprocess.run(["git", "--git-dir", repo, "rev-parse", "mm-new"],
                              capture_output=True, text=True, check=True).stdout.strip()
        STAND_IN.update(repo=repo, base=base)
    return STAND_IN


def mail_hunks(path):
    """file -> [new-side start of each hunk], in the mail's order"""
    hunks, cur = {}, None
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode(errors="replace")
            if line.startswith("diff --git "):
                cur = line.split()[-1][2:]
                hunks.setdefault(cur, [])
            elif line.startswith("@@ ") and cur:
                m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)", line)
                if m:
                    hunks[cur].append(int(m.group(1)))
    return hunks


def hunk_offsets(out):
    """file -> {hunk number: offset} from git apply -v's output"""
    offs, cur = {}, None
    for line in out.splitlines():
        if line.startswith("Checking patch "):
            cur = line[len("Checking patch "):].strip().rstrip(".").split(" => ")[-1]
            offs.setdefault(cur, {})
        m = HUNK_AT.match(line)
        if m and cur is not None:
            offs[cur][int(m.group(1))] = int(m.group(2) or 0)
    return offs


class Placed:
    """A patch as a commit of the stand-in: where its hunks landed.  A
    line outside the hunks moves with the hunk above it (the first one
    when none is above)."""

    def __init__(self, hunks, offs, how, rng, tip):
        self.hunks, self.offs, self.how, self.range, self.tip = hunks, offs, how, rng, tip

    def to_mail(self, path, line):
        """line of the placed file in the mail's numbering"""
        off = self.offs.get(path, {})
        k = 0
        for i, c in enumerate(self.hunks.get(path) or []):
            if c + off.get(i + 1, 0) <= line:
                k = i
        return line - off.get(k + 1, 0)


def git_env(repo, index):
    e = dict(os.environ)
    e.update(GIT_DIR=repo, GIT_INDEX_FILE=index)
    return e


def commit(repo, index, parent, msg):
    e = git_env(repo, index)
    tree = subprocess.run(["git", "write-tree"], env=e, capture_output=True,
                          text=True, check=True).stdout.strip()
    return subprocess.run(["git", "commit-tree", tree, "-p", parent, "-m", msg],
                          env=e, capture_output=True, text=True,
                          check=True).stdout.strip()


def place(mail, tmp, n, parent=None, reverse=False, only=()):
    """mail as a commit on the stand-in (parent, default mm-new): the
    commit range that is the patch and where its hunks went, or None.
    reverse: the patch is in the stand-in already; the range is the
    stand-in with it taken out, then put back."""
    si = stand_in(tmp)
    repo, parent = si["repo"], parent or si["base"]
    index = os.path.join(tmp, "index-%d" % n)
    e = git_env(repo, index)
    subprocess.run(["git", "read-tree", parent], env=e, check=True)
    r = subprocess.run(["git", "apply", "--cached", "-v"] + (["-R"] if reverse else []) +
                       ["--include=" + p for p in only] + [mail], env=e,
                       capture_output=True, text=True)
    if r.returncode:
        return None
    offs, how = hunk_offsets(r.stderr + r.stdout), "applies"
    tip = commit(repo, index, parent, "placed")
    if reverse:
        subprocess.run(["git", "read-tree", parent], env=e, check=True)
        base, tip = tip, commit(repo, index, tip, "put back")
        how = "reverts"
    else:
        base = parent
    return Placed(mail_hunks(mail), offs, how, "%s..%s" % (base, tip), tip)


def check_placed(placed, rules):
    return lorebot_check(["--repo", STAND_IN["repo"], placed.range], rules,
                         "with the tree", placed)


def pre_image(bug, tmp, n):
    """A commit of the stand-in whose files the bug's patch touches are
    at that patch's pre-image (bench/bugs/trees/ID/PATH.gz; how each was
    rebuilt: trees/README.md), and their paths; (None, []) without.
    Only those files of the patch are placed: its others are not at
    their pre-image."""
    top = os.path.join(HERE, "trees", bug["id"])
    if not os.path.isdir(top):
        return None, []
    paths = []
    si = stand_in(tmp)
    e = git_env(si["repo"], os.path.join(tmp, "index-pre-%d" % n))
    subprocess.run(["git", "read-tree", si["base"]], env=e, check=True)
    for d, _, names in os.walk(top):
        for name in names:
            if not name.endswith(".gz"):
                continue
            full = os.path.join(d, name)
            path = os.path.relpath(full, top)[:-3]
            with gzip.open(full, "rb") as f:
                blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], env=e,
                                      input=f.read(), capture_output=True,
                                      check=True).stdout.decode().strip()
            subprocess.run(["git", "update-index", "--add", "--cacheinfo",
                            "100644,%s,%s" % (blob, path)], env=e, check=True)
            paths.append(path)
    return commit(si["repo"], e["GIT_INDEX_FILE"], si["base"],
                  "pre-image of " + bug["id"]), paths


def place_bug(bug, mail, tmp, n):
    """the bug's patch on the stand-in as it is, else on its files'
    pre-image"""
    if not TREE or bug["mode"] != "hunks":
        return None
    placed = place(mail, tmp, n)
    if placed:
        return placed
    pre, paths = pre_image(bug, tmp, n)
    placed = pre and place(mail, tmp, n, parent=pre, only=paths)
    if placed:
        placed.how = "its files at their pre-image (trees/)"
    return placed


def verdict(bug, tmp, n):
    mail = one_mail(bug["intro"], tmp, n)
    placed = place_bug(bug, mail, tmp, n)
    d = check_placed(placed, [bug["rule"]]) if placed else check(mail, [bug["rule"]])
    hits = ["%s:%d" % (x["file"], x["line"]) for x in d["findings"]
            if x["rule"] == bug["rule"] and x["severity"] != "note" and x["file"]]
    found = [h for h in hits if h in bug["where"]]
    why = ""
    if not found:
        notes = [x["message"] for x in d["findings"] if x["rule"] == "hunks-only" and
                 bug["rule"] in x["message"]]
        if notes:
            why = "not decidable from the hunks (the note says so)"
        elif hits:
            why = "reported elsewhere: " + ", ".join(hits)
        else:
            why = "not found"
        if placed:
            why += " (%s)" % placed.how
    fix_hits = None
    if bug["fix"] not in ("", "-"):
        fix = one_mail(bug["fix"], tmp, n + 10000)
        on = placed and place(fix, tmp, n + 10000, parent=placed.tip)
        fd = check_placed(on, [bug["rule"]]) if on else check(fix, [bug["rule"]])
        fix_hits = ["%s:%d" % (x["file"], x["line"]) for x in fd["findings"]
                    if x["rule"] == bug["rule"] and x["severity"] != "note"]
    return {"id": bug["id"], "date": bug["date"], "rule": bug["rule"],
            "mode": bug["mode"], "found": bool(found), "at": found or hits,
            "why": why, "fix_hits": fix_hits,
            "tree": placed.how if placed else None}


def merged_check(m, tmp):
    """A merged patch with every mm rule; with --tree on the stand-in
    where it is taken out and put back, else from its hunks"""
    n, (path, _) = m
    placed = TREE and place(path, tmp, 20000 + n, reverse=True)
    if not placed:
        return check(path, MM_RULES)
    d = check_placed(placed, MM_RULES)
    d["tree"] = placed.how
    return d


def merged_mails(tmp, bugs, merged=MERGED):
    out, seen = [], set()
    for path in merged:
        raw = os.path.join(tmp, os.path.basename(path)[:-3])
        with gzip.open(path, "rb") as f, open(raw, "wb") as o:
            o.write(f.read())
        for i, m in enumerate(mailbox.mbox(raw)):
            msgid = str(m["Message-ID"]).strip()
            if msgid in seen:
                continue
            seen.add(msgid)
            p = os.path.join(tmp, "%s-%04d.mbox" % (os.path.basename(raw), i))
            with open(p, "wb") as o:
                o.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.as_bytes())
            out.append((p, msgid))
    for b in bugs:
        if b["fix"].endswith(".mbox") and "#" not in b["fix"]:
            p = os.path.join(TOP, b["fix"])
            msgid = str(next(iter(mailbox.mbox(p)))["Message-ID"]).strip()
            if msgid not in seen:
                seen.add(msgid)
                out.append((p, msgid))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--bugs-only", action="store_true")
    ap.add_argument("--merged-only", action="store_true")
    ap.add_argument("--list", action="store_true", help="list every false alarm")
    ap.add_argument("--heldout", action="store_true",
                    help="the held-out set (heldout.tsv) and its posted patches")
    ap.add_argument("--heldout2", action="store_true",
                    help="held-out set 2 (heldout2.tsv) and the merged patches")
    ap.add_argument("--heldout3", action="store_true",
                    help="held-out set 3 (heldout3.tsv) and the merged patches")
    ap.add_argument("--heldout4", action="store_true",
                    help="held-out set 4 (heldout4.tsv) and the merged patches")
    ap.add_argument("--tree", action="store_true",
                    help="each patch as a commit of the 6.12 stand-in where it "
                    "applies (merged ones: where they revert), checked with "
                    "the whole files; the others from their hunks")
    a = ap.parse_args()
    global TREE
    TREE = a.tree
    merged = MERGED
    if a.heldout4:
        bugs = load_bugs("heldout4.tsv")
    elif a.heldout3:
        bugs = load_bugs("heldout3.tsv")
    elif a.heldout2:
        bugs = load_bugs("heldout2.tsv")
    elif a.heldout:
        bugs = load_bugs("heldout.tsv")
        merged = (os.path.join(HERE, "heldout-posted.mbox.gz"),)
        JUDGED.append(os.path.join(HERE, "heldout-judged.tsv"))
    else:
        bugs = load_bugs()
    SEEN.update(load_seen())
    judged = load_judged()
    res = {"bugs": [], "merged": {"patches": 0, "false_alarms": [], "judged_ok": 0}}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        if TREE:
            stand_in(tmp)
        if not a.merged_only:
            res["bugs"] = list(ex.map(lambda x: verdict(x[1], tmp, x[0]),
                                      enumerate(bugs)))
        if not a.bugs_only:
            mails = merged_mails(tmp, bugs, merged)
            res["merged"]["patches"] = len(mails)
            for (path, msgid), d in zip(mails, ex.map(lambda m: merged_check(m, tmp),
                                                       enumerate(mails))):
                res["merged"]["tree"] = res["merged"].get("tree", 0) + bool(d.get("tree"))
                for x in d["findings"]:
                    if x["rule"] not in MM_RULES or x["severity"] == "note":
                        continue
                    where = "%s:%s" % (x["file"], x["line"])
                    v = judged.get((msgid, x["rule"], where), "unjudged")
                    if v == "true" or v.startswith("nit"):
                        res["merged"]["judged_ok"] += 1
                        continue
                    res["merged"]["false_alarms"].append(
                        {"msgid": msgid, "rule": x["rule"], "where": where,
                         "verdict": v, "message": x["message"]})
    if a.heldout or a.heldout2 or a.heldout3 or a.heldout4:
        report_heldout(res, bugs, "held-out set 4" if a.heldout4 else
                       "held-out set 3" if a.heldout3 else
                       "held-out set 2" if a.heldout2 else "held-out set",
                       "merged mm patches" if a.heldout2 or a.heldout3 or
                       a.heldout4 else
                       "posted mm patches of the window")
    else:
        report(res, bugs)
    if a.list:
        for fa in res["merged"]["false_alarms"]:
            print("FA %s %s %s (%s): %s" % (fa["rule"], fa["where"], fa["msgid"],
                                            fa["verdict"], fa["message"][:160]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


SEEN = {}
TREE = False


def tree_summary(rows):
    if not TREE:
        return
    by = collections.defaultdict(list)
    for r in rows:
        by[r.get("tree") or "from the hunks (does not fit 6.12)"].append(r)
    for how, rr in sorted(by.items()):
        print("   %-38s %2d, found %d%s" % (
            how + ":", len(rr), sum(r["found"] for r in rr),
            ": " + ", ".join(r["id"] for r in rr) if rr else ""))


def merged_line(res):
    if TREE:
        return " (%d of them on the 6.12 tree, taken out and put back; the " \
            "rest from their hunks)" % res["merged"].get("tree", 0)
    return ""


def report(res, bugs):
    dates = sorted(b["date"] for b in bugs)
    split = dates[len(dates) // 2] if dates else ""
    fa = {}
    for x in res["merged"]["false_alarms"]:
        fa[x["rule"]] = fa.get(x["rule"], 0) + 1
    for half, keep in (("older (design)", lambda d: d < split),
                       ("newer (report)", lambda d: d >= split)):
        rows = [r for r in res["bugs"] if keep(r["date"])]
        if not res["bugs"]:
            break
        print("== %s half: %d bugs, posted %s..%s" % (
            half, len(rows), min((r["date"] for r in rows), default="-"),
            max((r["date"] for r in rows), default="-")))
        print("%-20s %6s %6s %s" % ("rule", "scope", "found", "missed (why)"))
        for rule in MM_RULES:
            rr = [r for r in rows if r["rule"] == rule]
            if not rr:
                continue
            missed = ["%s: %s" % (r["id"], r["why"]) for r in rr if not r["found"]]
            print("%-20s %6d %6d %s" % (rule, len(rr), sum(r["found"] for r in rr),
                                        "; ".join(missed) or "-"))
        n = len(rows)
        f = sum(r["found"] for r in rows)
        print("%-20s %6d %6d (%d%%)" % ("total", n, f, 100 * f // n if n else 0))
        tree_summary(rows)
        held = [r for r in rows if r["id"] not in SEEN]
        hf = sum(r["found"] for r in held)
        if half.startswith("newer"):
            print("%-20s %6d %6d (%s)%s" % (
                "held out", len(held), hf,
                "%d%%" % (100 * hf // len(held)) if held else "-",
                ": " + ", ".join(r["id"] for r in held) if held else ""))
        bad = [r for r in rows if r["fix_hits"]]
        for r in bad:
            print("   fix of %s still flagged: %s" % (r["id"], ", ".join(r["fix_hits"])))
    print("== findings on a comment or naming nothing: %s" % (
        "; ".join(MALFORMED) or "none"))
    res["malformed"] = MALFORMED
    if res["merged"]["patches"]:
        print("== merged patches: %d checked with every mm rule%s; %d findings judged "
              "real or a correct nit; false alarms: %s" % (
                  res["merged"]["patches"], merged_line(res), res["merged"]["judged_ok"],
                  ", ".join("%s %d" % kv for kv in sorted(fa.items())) or "none"))


def report_heldout(res, bugs, name, patches):
    rows = res["bugs"]
    if rows:
        print("== %s: %d bugs, posted %s..%s, collected %s" % (
            name, len(rows), min(r["date"] for r in rows), max(r["date"] for r in rows),
            ", ".join(sorted(set(b.get("collected", "?") for b in bugs)))))
        print("%-20s %6s %6s %s" % ("rule", "scope", "found", "missed (why)"))
        for rule in MM_RULES:
            rr = [r for r in rows if r["rule"] == rule]
            if not rr:
                continue
            missed = ["%s: %s" % (r["id"], r["why"]) for r in rr if not r["found"]]
            print("%-20s %6d %6d %s" % (rule, len(rr), sum(r["found"] for r in rr),
                                        "; ".join(missed) or "-"))
        f = sum(r["found"] for r in rows)
        print("%-20s %6d %6d (%d%%)" % ("total", len(rows), f, 100 * f // len(rows)))
        tree_summary(rows)
        for r in rows:
            if r["fix_hits"]:
                print("   fix of %s still flagged: %s" % (r["id"], ", ".join(r["fix_hits"])))
    print("== findings on a comment or naming nothing: %s" % (
        "; ".join(MALFORMED) or "none"))
    res["malformed"] = MALFORMED
    if res["merged"]["patches"]:
        fa = {}
        for x in res["merged"]["false_alarms"]:
            fa[x["rule"]] = fa.get(x["rule"], 0) + 1
        print("== %s: %d checked with every mm rule%s; "
              "%d findings judged real or a correct nit; false alarms (judged false "
              "or not judged): %s" % (
                  patches, res["merged"]["patches"], merged_line(res),
                  res["merged"]["judged_ok"],
                  ", ".join("%s %d" % kv for kv in sorted(fa.items())) or "none"))


if __name__ == "__main__":
    main()

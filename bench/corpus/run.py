#!/usr/bin/env python3
"""Run lorebot check over the corpus; findings per 100 patches per rule.

usage: run.py [--tree] [--checkpatch] [--jobs N] [--set NAME] [--json OUT]
              [--list RULE]

Every patch of bench/corpus/<set>.mbox.gz is checked on its own
(lorebot check --mbox, one mail), from its hunks.  With --tree it is also
checked against the 6.12 stand-in (ci/mm-tree.sh): a recent patch on
mm-new as it is (those that apply, mostly at an offset), a merged one on
mm-new with the patch reverted (those whose reverse applies), so that it
applies exactly where it did.  Each finding is looked up in judged.tsv
(message-id, rule, file:line, verdict, why): "false" is a false alarm,
"true" a real problem; findings not in it are counted as unjudged and
listed with --list.

LOREBOT (default build/lorebot) is the binary.
"""
import argparse
import concurrent.futures
import gzip
import json
import mailbox
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
LOREBOT = os.environ.get("LOREBOT", os.path.join(TOP, "build", "lorebot"))
MM_RULES = None  # every rule but the series-level ones is listed


def load_judged():
    j = {}
    path = os.path.join(HERE, "judged.tsv")
    if os.path.exists(path):
        for line in open(path):
            if line.startswith("#") or not line.strip():
                continue
            msgid, rule, where, verdict, why = (line.rstrip("\n").split("\t") + [""])[:5]
            j[(msgid, rule, where)] = (verdict, why)
    return j


def mails(setname, tmp):
    path = os.path.join(HERE, setname + ".mbox.gz")
    raw = os.path.join(tmp, setname + ".mbox")
    with gzip.open(path) as f, open(raw, "wb") as o:
        o.write(f.read())
    out = []
    for i, m in enumerate(mailbox.mbox(raw)):
        p = os.path.join(tmp, "%s-%04d.mbox" % (setname, i))
        with open(p, "wb") as o:
            o.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + m.as_bytes())
        out.append((p, str(m["Message-ID"]).strip()))
    return out


def check(path, extra, checkpatch, env=None):
    cmd = [LOREBOT]
    if extra.get("config"):
        cmd += ["--config", extra["config"]]
    cmd += ["check", "--mbox", path, "--json"]
    # one patch of a series alone: the series-level checks say nothing
    sel = "-numbering,-cover-letter,-base-commit"
    # the 6.12 stand-in is one commit: every Fixes: id is unknown to it
    if extra.get("repo"):
        sel += ",-fixes-tag"
    cmd.append("--checkers=" + sel + ("" if checkpatch else ",-checkpatch"))
    if extra.get("repo"):
        cmd += ["--repo", extra["repo"]]
    t = time.time()
    r = subprocess.run(cmd, capture_output=True, env=env)
    dt = time.time() - t
    try:
        d = json.loads(r.stdout)
    except ValueError:
        return None, dt, r.stderr.decode(errors="replace")
    return d, dt, r.stderr.decode(errors="replace")


def git(repo, *args, inp=None, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    r = subprocess.run(["git", "--git-dir", repo] + list(args), input=inp,
                       capture_output=True, env=e)
    return r.returncode, r.stdout.decode().strip()


def diff_of(path):
    m = next(iter(mailbox.mbox(path)))
    body = m.get_payload(decode=True)
    if body is None:
        return None
    body = body.decode("utf-8", "replace")
    i = body.find("\ndiff --git ")
    if i < 0:
        return None
    d = body[i + 1:]
    j = d.find("\n-- \n")
    return d[:j + 1] if j >= 0 else d


def reverted_base(repo, tmp, path, n):
    """mm-new with the patch reverted, as a commit; None if it does not revert"""
    d = diff_of(path)
    if not d:
        return None
    idx = os.path.join(tmp, "index-%d" % n)
    env = {"GIT_INDEX_FILE": idx}
    git(repo, "read-tree", "mm-new", env=env)
    rc, _ = git(repo, "apply", "--cached", "-R", "-", inp=d.encode(), env=env)
    if rc:
        os.unlink(idx)
        return None
    rc, tree = git(repo, "write-tree", env=env)
    os.unlink(idx)
    rc, c = git(repo, "commit-tree", tree, "-p", "mm-new", inp=b"reverted\n")
    return c if not rc else None


MM_RULES = ("lazyfree-droppable", "progress-accounting", "one-line-args",
            "pte-map-null", "pte-unmap-exit", "rcu-unlock-exit", "unlock-exit",
            "atomic-sleep", "lock-assert")


def mm_wide(repo, tmp, env):
    """Every mm/*.c of the 6.12 stand-in touched, checked with --preexisting:
    what the mm rules say about all of mm/ as merged"""
    idx = os.path.join(tmp, "index-mm")
    e = {"GIT_INDEX_FILE": idx}
    git(repo, "read-tree", "mm-new", env=e)
    _, files = git(repo, "ls-tree", "-r", "--name-only", "mm-new", "mm/")
    for f in files.split("\n"):
        if not f.endswith(".c"):
            continue
        _, text = git(repo, "show", "mm-new:" + f)
        p = subprocess.run(["git", "--git-dir", repo, "hash-object", "-w", "--stdin"],
                           input=(text + "\n/* lorebot */\n").encode(),
                           capture_output=True, check=True)
        git(repo, "update-index", "--cacheinfo",
            "100644,%s,%s" % (p.stdout.decode().strip(), f), env=e)
    _, tree = git(repo, "write-tree", env=e)
    _, c = git(repo, "commit-tree", tree, "-p", "mm-new",
               inp=b"mm: touch every file\n\nSigned-off-by: T <t@example.org>\n")
    _, base = git(repo, "rev-parse", "mm-new")
    _, mail = git(repo, "format-patch", "--stdout", "--base=" + base, base + ".." + c)
    path = os.path.join(tmp, "mm-wide.mbox")
    with open(path, "w") as f:
        f.write(mail + "\n")
    t = time.time()
    r = subprocess.run([LOREBOT, "check", "--mbox", path, "--repo", repo, "--json",
                        "--preexisting", "--checkers=-all," + ",".join(MM_RULES)],
                       capture_output=True, env=env)
    dt = time.time() - t
    d = json.loads(r.stdout)
    return [f for f in d["findings"] if f.get("preexisting")], dt


def in_function(repo, func, where):
    """file:+N, N lines after the first line of func() in mm-new: file:line"""
    path, _, off = where.rpartition(":")
    if not off.startswith("+") or not repo:
        return where
    name = func.rstrip("()")
    _, out = git(repo, "grep", "-n", "-E", r"^[a-z].*\b%s\(" % name, "mm-new", "--", path)
    for line in out.split("\n"):
        parts = line.split(":")
        if len(parts) > 3:
            return "%s:%d" % (path, int(parts[2]) + int(off))
    return where


def reviewed(tmp, env, repo):
    """The problems of reviewed.tsv: found or missed"""
    rows = []
    for line in open(os.path.join(HERE, "reviewed.tsv")):
        if line.startswith("#") or not line.strip():
            continue
        src, msgid, rule, where, who = line.rstrip("\n").split("\t")
        rows.append((src, msgid, rule, where, who))
    found = {}
    singles = dict((mid, p) for p, mid in mails("reviewed", tmp))
    wide = None
    for src, msgid, rule, where, who in rows:
        if src.startswith("linux-6.12:"):
            if wide is None:
                wide = mm_wide(repo, tmp, env)[0] if repo else []
            where = in_function(repo, msgid, where)
            got = ["%s:%d" % (f["file"], f["line"]) for f in wide if f["rule"] == rule]
        else:
            path = singles.get(msgid) if ":" in src else os.path.join(TOP, src)
            d, _, _ = check(path, {}, False, env) if path else (None, 0, "")
            got = ["%s:%d" % (f["file"], f["line"]) for f in (d or {}).get("findings", [])
                   if f["rule"] == rule and f.get("file")]
        found[(msgid, rule, where)] = where in got
        print("%-6s %-20s %-30s %s" % ("caught" if where in got else "MISSED", rule,
                                        where, who[:70]))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="store_true")
    ap.add_argument("--checkpatch", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--set", action="append")
    ap.add_argument("--json")
    ap.add_argument("--list", action="append", default=[])
    ap.add_argument("--reviewed", action="store_true",
                    help="the real problems of reviewed.tsv, and all of mm/ in 6.12")
    a = ap.parse_args()
    judged = load_judged()
    sets = a.set or ["merged", "recent"]
    tmp = tempfile.mkdtemp(prefix="lorebot-corpus.")
    env = dict(os.environ)
    env["LOREBOT_CACHE"] = os.path.join(tmp, "cache")
    mm = subprocess.run([os.path.join(TOP, "ci", "mm-tree.sh")], capture_output=True,
                        text=True).stdout.strip()
    repo = None
    if a.tree:
        repo = os.path.join(tmp, "linux.git")
        subprocess.run(["git", "clone", "-q", "--bare", "--shared", mm, repo], check=True)
        # checkpatch.pl and the fallback tree
        os.makedirs(env["LOREBOT_CACHE"])
        os.symlink(mm, os.path.join(env["LOREBOT_CACHE"], "mm.git"))
    else:
        env["LOREBOT_CACHE"] = os.path.dirname(mm)
    report = {}
    if a.reviewed:
        if not repo:
            repo = os.path.join(tmp, "linux.git")
            subprocess.run(["git", "clone", "-q", "--bare", "--shared", mm, repo],
                           check=True)
        print("== reviewed: real problems in a rule's scope")
        found = reviewed(tmp, env, repo)
        wide, dt = mm_wide(repo, tmp, env)
        print("== all of mm/ in 6.12 (every .c file touched), --preexisting, "
              "%.1f s: pre-existing notes per rule" % dt)
        per = {}
        for f in wide:
            per[f["rule"]] = per.get(f["rule"], 0) + 1
        for rule in MM_RULES:
            print("%-28s %5d" % (rule, per.get(rule, 0)))
        report["reviewed"] = {"caught": sum(found.values()), "total": len(found),
                              "mm-wide": per, "mm-wide-seconds": round(dt, 1)}
        sets = a.set or []
    for s in sets:
        todo = mails(s, tmp)
        runs = [("hunks", p, mid, {}) for p, mid in todo]
        if a.tree:
            for n, (p, mid) in enumerate(todo):
                if s == "merged":
                    base = reverted_base(repo, tmp, p, n)
                    if not base:
                        continue
                    cfg = os.path.join(tmp, "base-%d.conf" % n)
                    with open(cfg, "w") as f:
                        f.write("[git]\n\tbase = %s\n" % base)
                    runs.append(("tree", p, mid, {"repo": repo, "config": cfg}))
                else:
                    runs.append(("tree", p, mid, {"repo": repo}))
        results = []
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            futs = [(mode, mid, ex.submit(check, p, extra, a.checkpatch, env))
                    for mode, p, mid, extra in runs]
            for mode, mid, fu in futs:
                d, dt, err = fu.result()
                results.append((mode, mid, d, dt, err))
        for mode in ("hunks", "tree"):
            rs = [r for r in results if r[0] == mode]
            if not rs:
                continue
            if mode == "tree":
                rs = [r for r in rs if r[2] and all(p["applied"] for ser in r[2]["series"]
                                                    for p in ser["patches"])]
            per = {}
            for _, mid, d, dt, err in rs:
                for f in (d or {}).get("findings", []):
                    if not f.get("file") and f["rule"].startswith("checkpatch"):
                        pass
                    # a series note (hunks-only) has neither file nor line
                    where = "%s:%d" % (f["file"], f["line"] or 0) if f.get("file") else \
                            "COMMIT_MSG:%d" % (f["line"] or 0)
                    v = judged.get((mid, f["rule"], where), ("unjudged", ""))[0]
                    r = per.setdefault(f["rule"], {"findings": 0, "patches": set(),
                                                   "true": 0, "false": 0,
                                                   "unjudged": 0, "notes": 0})
                    r["findings"] += 1
                    r["patches"].add(mid)
                    if f["severity"] == "note":
                        r["notes"] += 1
                    r[v if v in ("true", "false") else "unjudged"] += 1
                    if f["rule"] in a.list or "all" in a.list:
                        print("%s\t%s\t%s\t%s\t%s\t%s\t%s" % (
                            s, mode, mid, f["rule"], where, v, f["message"][:150]))
            wall = sum(r[3] for r in rs)
            report["%s/%s" % (s, mode)] = {
                "patches": len(rs), "seconds": round(wall, 1),
                "failed": sum(1 for r in rs if r[2] is None),
                "rules": {k: dict(v, patches=len(v["patches"])) for k, v in per.items()},
            }
    for k, v in report.items():
        if k == "reviewed":
            continue
        n = v["patches"]
        print("== %s: %d patches, %.1f s of checks (%d without JSON)" %
              (k, n, v["seconds"], v["failed"]))
        print("%-28s %8s %8s %9s %6s %6s %8s" % ("rule", "findings", "patches",
                                                "per 100", "true", "false", "unjudged"))
        for rule, r in sorted(v["rules"].items()):
            print("%-28s %8d %8d %9.1f %6d %6d %8d" % (
                rule, r["findings"], r["patches"], 100.0 * r["patches"] / max(n, 1),
                r["true"], r["false"], r["unjudged"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())

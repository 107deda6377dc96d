#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Apply time and peak RSS: 'lorebot apply' next to 'git am' on the same
mbox files against the 6.12 stand-in of mm-new (see bench/README.md).

Inputs: the applicable part of thread 004 (patch 1/4 alone), the whole
4-patch series of 004 (git am stops at 2/4; lorebot reports every failing
hunk and tries 3/4 and 4/4 alone), and a 20-patch series generated from
commits made on the 6.12 tree.  git am runs in a checked-out clone (its
checkout is not timed); lorebot works on a bare clone.  Objects written by
a run are removed before the next one, so every run starts equal.

Every run must end as expected (lorebot apply: 0 when every patch
applies, 1 for 004 whose 2/4 does not; git am: 0, or not 0 for 004), and
lorebot's tree must be git am's, or the benchmark fails.

Environment: LOREBOT (binary, default build/lorebot), RUNS (default 5),
BENCH_OUT (work directory, default bench/out/apply), EXPORT=0 to skip the
checkout measurements (they write 1.4 GB per run).  BENCH_TINY=1: one run,
004-1 only, git am in a sparse checkout of mm/ and include/ (the whole
tree's checkout is minutes of a loaded machine), no export.
"""
import os
import statistics
import subprocess
import sys
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOREBOT = os.environ.get("LOREBOT", os.path.join(SRC, "build", "lorebot"))
RUNS = int(os.environ.get("RUNS", "5"))
OUT = os.path.abspath(os.environ.get("BENCH_OUT", os.path.join(SRC, "bench", "out", "apply")))
EXPORT = os.environ.get("EXPORT", "1") != "0"
TINY = os.environ.get("BENCH_TINY") == "1"
if TINY:
    RUNS, EXPORT = 1, False
    OUT = os.path.abspath(os.environ.get("BENCH_OUT", os.path.join(SRC, "bench", "out",
                                                                   "apply-tiny")))
ENV = dict(os.environ, GIT_AUTHOR_NAME="Bench Author", GIT_AUTHOR_EMAIL="bench@example.com",
           GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.com",
           GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.path.join(OUT, "gitconfig"))


def fail(why):
    sys.exit("bench apply: FAILED: " + why)


def run(*argv, **kw):
    return subprocess.run(argv, check=True, env=ENV, stdout=subprocess.PIPE, **kw).stdout


def git(gitdir, *args, **kw):
    return run("git", "--git-dir", gitdir, *args, **kw)


def measure(argv, cwd=None):
    """Wall time (s), peak RSS (MB), exit status and CPU (s, user + sys,
    its children included) of one command"""
    t0 = time.monotonic()
    c0 = os.times()
    p = subprocess.Popen(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    c1 = os.times()
    cpu = ru.ru_utime + ru.ru_stime
    # its children (git am runs git apply...): reaped by it, counted in ours
    cpu = max(cpu, (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system))
    return time.monotonic() - t0, ru.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), cpu


def loose(objdir):
    found = set()
    for d in os.listdir(objdir):
        if len(d) == 2:
            found.update(os.path.join(objdir, d, f) for f in os.listdir(os.path.join(objdir, d)))
    return found


def remove_new(objdir, before):
    for f in loose(objdir) - before:
        os.unlink(f)


def prepare():
    os.makedirs(OUT, exist_ok=True)
    mm = run(os.path.join(SRC, "ci", "mm-tree.sh")).decode().strip()
    bot, wt, gen = (os.path.join(OUT, n) for n in ("bot.git", "wt", "gen.git"))
    if not os.path.isdir(bot):
        run("git", "clone", "-q", "--bare", "--shared", mm, bot)
    if not os.path.isdir(wt) and TINY:
        run("git", "clone", "-q", "--shared", "--no-checkout", "-b", "mm-new", mm, wt)
        run("git", "sparse-checkout", "set", "mm", "include", cwd=wt)
        run("git", "checkout", "-q", "-B", "bench", "origin/mm-new", cwd=wt)
    elif not os.path.isdir(wt):
        print("bench: checking out the 6.12 tree for git am (once)", file=sys.stderr)
        run("git", "clone", "-q", "--shared", "-b", "mm-new", mm, wt)
        run("git", "checkout", "-q", "-B", "bench", "origin/mm-new", cwd=wt)
    if not os.path.isdir(gen):
        run("git", "clone", "-q", "--bare", "--shared", mm, gen)

    # 004: its four patches, and patch 1/4 alone as a one-patch series
    split = os.path.join(OUT, "split")
    os.makedirs(split, exist_ok=True)
    for f in os.listdir(split):
        os.unlink(os.path.join(split, f))
    run("git", "mailsplit", "--mboxrd", "-o" + split,
        os.path.join(SRC, "tests", "fixtures", "lore", "004_476fa21b8430df59.mbox"))
    patches = {}
    for f in sorted(os.listdir(split)):
        text = open(os.path.join(split, f), encoding="utf-8").read()
        if not text.startswith("From "):
            text = "From mboxrd@z Thu Jan  1 00:00:00 1970\n" + text
        for n in range(1, 5):
            if "\nSubject: [PATCH v3 %d/4]" % n in text:
                patches[n] = text
    with open(os.path.join(OUT, "004.mbox"), "w", encoding="utf-8") as o:
        for n in range(1, 5):
            o.write(patches[n] + "\n")
    with open(os.path.join(OUT, "004-1.mbox"), "w", encoding="utf-8") as o:
        o.write(patches[1].replace("Subject: [PATCH v3 1/4]", "Subject: [PATCH v3]") + "\n")

    # 20 patches on the 6.12 tree, two hunks each in 20 files of mm/
    s20 = os.path.join(OUT, "s20.mbox")
    if not os.path.exists(s20) and not TINY:
        files = [l.split("\t")[1] for l in git(gen, "ls-tree", "mm-new", "mm/").decode().splitlines()
                 if l.endswith(".c")]
        files = [f for f in files if int(git(gen, "cat-file", "-s", "mm-new:" + f)) > 20000][:20]
        idx = dict(ENV, GIT_INDEX_FILE=os.path.join(OUT, "gen.idx"), GIT_DIR=gen)
        subprocess.run(["git", "read-tree", "mm-new"], env=idx, check=True)
        parent = git(gen, "rev-parse", "mm-new").decode().strip()
        for i, f in enumerate(files, 1):
            lines = git(gen, "cat-file", "blob", "mm-new:" + f).decode("utf-8", "replace").split("\n")
            for at in (len(lines) * 7 // 10, len(lines) * 3 // 10):
                lines.insert(at, "/* lorebot bench: patch %d */" % i)
            blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], env=idx, check=True,
                                  input="\n".join(lines).encode(), stdout=subprocess.PIPE)
            subprocess.run(["git", "update-index", "--cacheinfo", "100644",
                            blob.stdout.decode().strip(), f], env=idx, check=True)
            tree = subprocess.run(["git", "write-tree"], env=idx, check=True,
                                  stdout=subprocess.PIPE).stdout.decode().strip()
            msg = "mm: bench change %d in %s\n\nTwo comments.\n\nSigned-off-by: Bench Author <bench@example.com>\n" % (i, f)
            parent = subprocess.run(["git", "commit-tree", tree, "-p", parent], env=idx, check=True,
                                    input=msg.encode(), stdout=subprocess.PIPE).stdout.decode().strip()
        with open(s20, "wb") as o:
            o.write(git(gen, "format-patch", "--thread", "--stdout", "mm-new.." + parent))
    return bot, wt


TREES = {}


def bench_lorebot(bot, mbox, extra=()):
    objdir = os.path.join(bot, "objects")
    before = loose(objdir)
    res = []
    for _ in range(RUNS):
        res.append(measure([LOREBOT, "apply", "--mbox", mbox, "--repo", bot, *extra]))
        for ref in git(bot, "for-each-ref", "--format=%(refname)", "refs/heads/lorebot").split():
            TREES[("lorebot", mbox)] = git(bot, "rev-parse", ref.decode() + "^{tree}").strip()
            git(bot, "update-ref", "-d", ref.decode())
        remove_new(objdir, before)
    return res


def bench_am(wt, mbox):
    objdir = os.path.join(wt, ".git", "objects")
    before = loose(objdir)
    res = []
    for _ in range(RUNS):
        res.append(measure(["git", "am", "-q", mbox], cwd=wt))
        if res[-1][2] == 0:
            TREES[("am", mbox)] = run("git", "rev-parse", "HEAD^{tree}", cwd=wt).strip()
        subprocess.run(["git", "am", "--abort"], cwd=wt, env=ENV, stderr=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL)
        run("git", "reset", "-q", "--hard", "origin/mm-new", cwd=wt)
        remove_new(objdir, before)
    return res


def bench_export(bot, mbox):
    root = os.path.join(OUT, "trees")
    fresh, again, wtadd = [], [], []
    for _ in range(max(1, RUNS // 2)):
        subprocess.run(["chmod", "-R", "u+w", root], stderr=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", root], check=True)
        fresh.append(measure([LOREBOT, "apply", "--mbox", mbox, "--repo", bot, "--export", root]))
        tips = [d for d in os.listdir(root) if not d.startswith(".")]
        base = git(bot, "rev-parse", "mm-new^{tree}").decode().strip()
        for d in tips:
            if d != base:
                subprocess.run(["chmod", "-R", "u+w", os.path.join(root, d)], check=True)
                subprocess.run(["rm", "-rf", os.path.join(root, d)], check=True)
        for ref in git(bot, "for-each-ref", "--format=%(refname)", "refs/heads/lorebot").split():
            git(bot, "update-ref", "-d", ref.decode())
        again.append(measure([LOREBOT, "apply", "--mbox", mbox, "--repo", bot, "--export", root]))
        w = os.path.join(OUT, "wtadd")
        subprocess.run(["rm", "-rf", w], check=True)
        wtadd.append(measure(["git", "--git-dir", bot, "worktree", "add", "-q", "--detach", w,
                              "mm-new"]))
        subprocess.run(["rm", "-rf", w], check=True)
        git(bot, "worktree", "prune")
    subprocess.run(["chmod", "-R", "u+w", root], stderr=subprocess.DEVNULL)
    subprocess.run(["rm", "-rf", root], check=True)
    return fresh, again, wtadd


def expect(name, what, res, ok):
    """every run of res ended with a status ok() accepts"""
    bad = sorted(set(r[2] for r in res if not ok(r[2])))
    if bad:
        fail("%s: %s exited %s" % (name, what, ",".join(map(str, bad))))


def row(name, what, res):
    t = statistics.median(r[0] for r in res)
    cpu = statistics.median(r[3] for r in res)
    rss = max(r[1] for r in res)
    codes = sorted(set(r[2] for r in res))
    print("| %-22s | %-34s | %7.3f | %7.3f | %6.1f | %-6s |" % (name, what, t, cpu, rss,
                                                               ",".join(map(str, codes))))
    return t, cpu


def main():
    bot, wt = prepare()
    print("%s; runs: %d; machine: %s, %d cores, load %s" % (
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), RUNS, os.uname().machine,
        os.cpu_count(), " ".join(open("/proc/loadavg").read().split()[:3])))
    print("| input | command | median wall s | median CPU s | peak RSS MB | exit |")
    print("| --- | --- | --- | --- | --- | --- |")
    if TINY:
        print("bench apply: skipped: 004 (does not apply), s20 and the export: the tiny mode")
    for name in ("004-1",) if TINY else ("004-1", "004", "s20"):
        mbox = os.path.join(OUT, name + ".mbox")
        applies = name != "004"
        res = bench_lorebot(bot, mbox)
        expect(name, "lorebot apply", res, lambda c: c == (0 if applies else 1))
        lb = row(name, "lorebot apply", res)
        res = bench_am(wt, mbox)
        expect(name, "git am", res, lambda c: (c == 0) == applies)
        am = row(name, "git am", res)
        print("| %-22s | %-34s | %7.2f | %7.2f | | |" % (name, "ratio lorebot / git am",
                                                      lb[0] / am[0], lb[1] / am[1] if am[1] else 0))
        if applies:
            same = TREES.get(("lorebot", mbox)) == TREES[("am", mbox)]
            print("| %-22s | %-34s | %7s | | | |" % (name, "same tree as git am",
                                                  "yes" if same else "NO"))
            if not same:
                fail("%s: lorebot's tree is not git am's" % name)
    if EXPORT:
        fresh, again, wtadd = bench_export(bot, os.path.join(OUT, "s20.mbox"))
        for what, res in (("apply --export", fresh), ("apply --export", again),
                          ("git worktree add", wtadd)):
            expect("s20", what, res, lambda c: c == 0)
        row("s20 + export", "apply, export base and result", fresh)
        row("s20 + export", "apply, export result (base exists)", again)
        row("mm-new", "git worktree add --detach", wtadd)


if __name__ == "__main__":
    main()

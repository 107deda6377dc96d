#!/usr/bin/env python3
"""Changed-line coverage of real mm patches: the small profile against the
repaired configuration (bench/README.md, "Changed-line coverage").

The patches: bench/corpus (merged, recent) and the review-cases corpus
(/work/shared/review-cases/corpus/mbox.tar.gz), one mail each, deduplicated
by Message-ID.  Each becomes a pair of commits of a bare clone of the 6.12
stand-in (ci/mm-tree.sh):

  apply    the patch applies to mm-new (git apply --recount, context as
           git wants it): (mm-new, mm-new + patch);
  revert   it is in 6.12 already and reverts: (mm-new - patch, mm-new);
  files    neither, whole: the files whose hunks apply (or revert) alone;
  skipped  nothing of it fits 6.12's files.

Only the lines lorebot counts are measured (post-image "+" lines of .c and
.h outside tools/, scripts/, Documentation/, blank and comment lines and
#if/#else/#endif left out).  build/bench/cover-measure does the measuring
per arch in the small profile's build directory of the 6.12 base (built
once, by lorebot's own code): the exact coverage (units preprocessed with
the base's commands), the cheap prediction line by line, the repair
(Kconfig's olddefconfig) and the cheap prediction with the repaired
.config.

usage: bench/coverage.py prepare WORK        the commits, WORK/list
       bench/coverage.py measure WORK ARCH [STEP]  WORK/ARCH.jsonl (hours: nice);
                                             every STEP-th patch of the list, in
                                             an order whose every prefix is spread
                                             over it (resumes where it stopped)
       bench/coverage.py report WORK [ARCH...]   the numbers
       bench/coverage.py cost WORK N [ARCH]  N of the patches that apply to
                                             mm-new built with lorebot build,
                                             small then repaired (twice):
                                             WORK/cost.jsonl
       bench/coverage.py costreport WORK
env:   LOREBOT_CACHE (the build directories; default /var/tmp/lorebot-bench-cover/cache)
"""
import collections
import gzip
import json
import mailbox
import os
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
REVIEW = "/work/shared/review-cases/corpus/mbox.tar.gz"
SKIP = ("tools/", "scripts/", "Documentation/", "usr/")


def git(repo, *args, inp=None, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    r = subprocess.run(["git", "--git-dir", repo] + list(args), input=inp,
                       capture_output=True, env=e)
    return r.returncode, r.stdout.decode(errors="replace").strip()


def counted(path):
    return path.endswith((".c", ".h")) and not path.startswith(SKIP)


def build_file(path):
    base = path.rsplit("/", 1)[-1]
    return base in ("Makefile", "Kbuild") or base.startswith("Kconfig")


def body_diff(msg):
    if msg.is_multipart():
        for part in msg.walk():
            if part.get_content_type() == "text/plain":
                msg = part
                break
    body = msg.get_payload(decode=True)
    if body is None:
        return None
    body = body.decode("utf-8", "replace").replace("\r\n", "\n")
    i = body.find("\ndiff --git ")
    if i < 0:
        return None
    d = body[i + 1:]
    j = d.find("\n-- \n")
    return d[:j + 1] if j >= 0 else d


def split_files(diff):
    """{path: the diff of that file}"""
    out, cur, name = {}, [], None
    for line in diff.splitlines(True):
        if line.startswith("diff --git "):
            if name:
                out[name] = "".join(cur)
            cur, name = [line], line.split(" b/", 1)[-1].strip()
        elif name:
            cur.append(line)
    if name:
        out[name] = "".join(cur)
    return out


def corpus():
    """(source, message-id, subject, diff) of every patch mail"""
    seen = set()
    for name in ("merged", "recent"):
        with gzip.open(os.path.join(HERE, "corpus", name + ".mbox.gz")) as f:
            raw = f.read()
        with tempfile.NamedTemporaryFile(suffix=".mbox") as t:
            t.write(raw)
            t.flush()
            for m in mailbox.mbox(t.name):
                mid = str(m["Message-ID"]).strip()
                if mid in seen:
                    continue
                seen.add(mid)
                yield "bench/" + name, mid, str(m["Subject"]), body_diff(m)
    if os.path.exists(REVIEW):
        with tarfile.open(REVIEW) as tar:
            for ti in sorted(tar.getmembers(), key=lambda x: x.name):
                if not ti.name.endswith(".mbox"):
                    continue
                data = tar.extractfile(ti).read()
                with tempfile.NamedTemporaryFile(suffix=".mbox") as t:
                    t.write(data)
                    t.flush()
                    for m in mailbox.mbox(t.name):
                        mid = str(m["Message-ID"]).strip()
                        if mid in seen:
                            continue
                        seen.add(mid)
                        yield "review-cases", mid, str(m["Subject"]), body_diff(m)


def commit_tree(repo, tree, parent, msg):
    rc, c = git(repo, "commit-tree", tree, "-p", parent, inp=msg.encode(),
                env={"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@lorebot.invalid",
                     "GIT_COMMITTER_NAME": "bench",
                     "GIT_COMMITTER_EMAIL": "bench@lorebot.invalid",
                     "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
                     "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"})
    return c if not rc else None


def checks(tree, diff, reverse):
    """Does diff apply (reverse: revert) to the files in tree?"""
    args = ["git", "apply", "--check", "--recount"] + (["-R"] if reverse else []) + ["-"]
    return subprocess.run(args, cwd=tree, input=diff.encode(),
                          capture_output=True).returncode == 0


def apply_tree(repo, work, diff, reverse):
    idx = os.path.join(work, "index")
    env = {"GIT_INDEX_FILE": idx}
    if os.path.exists(idx):
        os.unlink(idx)
    git(repo, "read-tree", "mm-new", env=env)
    args = ["apply", "--cached", "--recount"] + (["-R"] if reverse else []) + ["-"]
    rc, _ = git(repo, *args, inp=diff.encode(), env=env)
    if rc:
        return None
    rc, tree = git(repo, "write-tree", env=env)
    return tree if not rc else None


def files_at_base(repo, work, paths):
    """A directory holding mm-new's version of the paths that exist there"""
    tree = os.path.join(work, "files")
    subprocess.run(["rm", "-rf", tree], check=True)
    os.makedirs(tree)
    have = [p for p in paths if git(repo, "cat-file", "-e", "mm-new:" + p)[0] == 0]
    if have:
        a = subprocess.run(["git", "--git-dir", repo, "archive", "mm-new", "--"] + have,
                           capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=a, check=True)
    return tree


def prepare(work):
    repo = os.path.join(work, "repo.git")
    if not os.path.exists(repo):
        src = subprocess.run([os.path.join(TOP, "ci/mm-tree.sh")], capture_output=True,
                             text=True, check=True).stdout.strip()
        subprocess.run(["git", "clone", "-q", "--bare", "--shared", src, repo], check=True)
    _, base_tree = git(repo, "rev-parse", "mm-new^{tree}")
    _, base = git(repo, "rev-parse", "mm-new")
    rows, stats = [], collections.Counter()
    for n, (source, mid, subject, diff) in enumerate(corpus()):
        if not diff:
            stats["no diff"] += 1
            continue
        all_files = split_files(diff)
        files = {p: d for p, d in all_files.items() if counted(p) or build_file(p)}
        if not any(counted(p) for p in files):
            stats["no .c/.h line counted"] += 1
            continue
        pid = "p%03d" % n
        how, pair, fit = None, None, None
        tree = files_at_base(repo, work, list(files))
        whole = "".join(files.values())
        if checks(tree, whole, False):
            fit, rev, how = whole, False, "apply"
        elif checks(tree, whole, True):
            fit, rev, how = whole, True, "revert"
        else:
            # file by file, the files that fit (forward first)
            fwd = [d for d in files.values() if checks(tree, d, False)]
            bwd = [d for d in files.values() if checks(tree, d, True)]
            if fwd and len(fwd) >= len(bwd):
                fit, rev, how = "".join(fwd), False, "files"
            elif bwd:
                fit, rev, how = "".join(bwd), True, "files"
        if fit:
            t = apply_tree(repo, work, fit, rev)
            if t and not rev:
                pair = (base, commit_tree(repo, t, base, pid + "\n"))
            elif t:
                pre = commit_tree(repo, t, base, pid + " reverted\n")
                pair = (pre, commit_tree(repo, base_tree, pre, pid + "\n"))
        if not pair or not pair[1]:
            stats["skipped: does not fit 6.12"] += 1
            continue
        stats[how] += 1
        rows.append((pid, pair[0], pair[1], how, source, mid, subject.replace("\t", " ")))
    with open(os.path.join(work, "list"), "w") as f:
        for r in rows:
            f.write("%s %s %s\n" % r[:3])
    with open(os.path.join(work, "patches.tsv"), "w") as f:
        f.write("# id\thow\tsource\tmessage-id\tsubject\n")
        for r in rows:
            f.write("\t".join((r[0],) + r[3:]) + "\n")
    for k, v in sorted(stats.items()):
        print("%-28s %d" % (k, v))
    print("%-28s %d" % ("patches measured", len(rows)))


def spread(rows):
    """rows in an order any prefix of which is spread evenly over them
    (bit-reversed indices): a run stopped early is still an even sample"""
    bits = max(1, (len(rows) - 1).bit_length())
    key = lambda i: int(format(i, "0%db" % bits)[::-1], 2)
    return [rows[i] for i in sorted(range(len(rows)), key=key)]


def measure(work, arch, step=1):
    tool = os.path.join(TOP, "build/bench/cover-measure")
    subprocess.run(["make", "-s", "build/bench/cover-measure"], cwd=TOP, check=True)
    conf = os.path.join(work, "bot.conf")
    with open(conf, "w") as f:
        # build/bench/cover-measure does not find config/fragments as build/lorebot does
        f.write("[build]\n\tprofile = small\n\tjobs = 2\n\ttimeout = 3h\n\tfragments = %s\n"
                % os.path.join(TOP, "config/fragments"))
    repo = os.path.join(work, "repo.git")
    _, base = git(repo, "rev-parse", "mm-new")
    out = os.path.join(work, arch + ".jsonl")
    done = set()
    if os.path.exists(out):
        for line in open(out):
            try:
                done.add(json.loads(line)["id"])
            except ValueError:
                pass
    rows = spread(open(os.path.join(work, "list")).readlines()[::step])
    todo = [l for l in rows if l.split()[0] not in done]
    with open(out, "a") as o:
        subprocess.run(["nice", "-n", "15", tool, conf, repo, arch, base],
                       input="".join(todo).encode(), stdout=o, check=True)


def run_build(work, branch, arch, extra):
    """lorebot build of branch on mm-new: (its JSON, wall s, CPU s of it and its children)"""
    conf = os.path.join(work, "bot.conf")
    with open(conf, "w") as f:
        f.write("[build]\n\tprofile = small\n\tjobs = 2\n\ttimeout = 3h\n")
    timef = os.path.join(work, "time")
    cmd = ["nice", "-n", "10", "/usr/bin/time", "-f", "%e %U %S", "-o", timef,
           os.path.join(TOP, "build/lorebot"), "--config", conf, "build",
           "--repo", os.path.join(work, "repo.git"), "--series", branch, "--base", "mm-new",
           "--arch", arch, "--log-dir", os.path.join(work, "logs", branch.replace("/", "-")),
           "--json"] + extra
    r = subprocess.run(cmd, capture_output=True)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        d = None
    wall, user, sys_ = (float(x) for x in open(timef).read().split()[-3:])
    return d, wall, user + sys_


def cost(work, n, arch):
    rows = [l.split() for l in open(os.path.join(work, "list"))]
    how = {}
    for line in open(os.path.join(work, "patches.tsv")):
        if not line.startswith("#"):
            f = line.rstrip("\n").split("\t")
            how[f[0]] = f[1]
    repo = os.path.join(work, "repo.git")
    _, base = git(repo, "rev-parse", "mm-new")
    applies = [r for r in rows if how.get(r[0]) in ("apply", "files") and r[1] == base]
    step = max(1, len(applies) // n)
    sample = applies[::step][:n]
    out = os.path.join(work, "cost.jsonl")
    done = set()
    if os.path.exists(out):
        done = {json.loads(l)["id"] for l in open(out)}
    for pid, _, commit in sample:
        if pid in done:
            continue
        branch = "cost/" + pid
        git(repo, "update-ref", "refs/heads/" + branch, commit)
        rec = {"id": pid, "arch": arch}
        for name, extra in (("small", ["--no-repair"]), ("repaired", []), ("again", [])):
            d, wall, cpu = run_build(work, branch, arch, extra)
            a = d["archs"][0] if d else {}
            c = a.get("coverage", {})
            rec[name] = {"wall": wall, "cpu": cpu, "status": a.get("status"),
                         "seconds": a.get("seconds"),
                         "changed": c.get("changed"), "compiled": c.get("compiled"),
                         "other_arch": c.get("other_arch"),
                         "repair_used": c.get("repair", {}).get("used"),
                         "seeded": c.get("repair", {}).get("seeded"),
                         "config": c.get("repair", {}).get("config")}
            if name == "repaired" and not rec[name]["repair_used"]:
                break
        with open(out, "a") as o:
            o.write(json.dumps(rec) + "\n")
        print(pid, {k: (v["wall"], v["status"]) for k, v in rec.items() if isinstance(v, dict)},
              flush=True)


def quantile(v, q):
    v = sorted(v)
    if not v:
        return float("nan")
    i = (len(v) - 1) * q
    lo = int(i)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def costreport(work):
    recs = [json.loads(l) for l in open(os.path.join(work, "cost.jsonl"))]
    for key in ("wall", "cpu"):
        first = [r["repaired"][key] / r["small"][key] for r in recs]
        warm = [r.get("again", r["repaired"])[key] / r["small"][key] for r in recs]
        print("%s: %d series; repaired / small: first (the repaired base made) median %.2fx "
              "p90 %.2fx; warm repaired base median %.2fx p90 %.2fx"
              % (key, len(recs), quantile(first, .5), quantile(first, .9),
                 quantile(warm, .5), quantile(warm, .9)))
    used = [r for r in recs if r["repaired"].get("repair_used")]
    print("repair used for %d of %d; lines compiled small %d, repaired %d of %d"
          % (len(used), len(recs), sum(r["small"]["compiled"] or 0 for r in recs),
             sum(r["repaired"]["compiled"] or 0 for r in recs),
             sum(r["small"]["changed"] or 0 for r in recs)))


def lines_of(spec):
    """"3:1 4:0" -> {3: True, 4: False}"""
    out = {}
    for item in (spec or "").split():
        l, c = item.split(":")
        out[int(l)] = c == "1"
    return out


def spans(s):
    out = set()
    for part in (s or "").split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def report(work, archs):
    recs = collections.defaultdict(dict)
    for arch in archs:
        for line in open(os.path.join(work, arch + ".jsonl")):
            r = json.loads(line)
            recs[r["id"]][arch] = r
    total = small = cheap_small = repaired = 0
    patches = still = 0
    agree = collections.Counter()
    why = collections.Counter()
    per_patch = []
    for pid, by_arch in sorted(recs.items()):
        if len(by_arch) < len(archs) or any("cheap_small_lines" not in r or
                                            "error" in r for r in by_arch.values()):
            continue
        lines = {}      # (file, line) -> [exact small, cheap small, cheap repaired] on any arch
        for arch, r in by_arch.items():
            miss = r["exact"]["miss"]
            for f, spec in r["cheap_small_lines"].items():
                exact_miss = spans(miss.get(f, ""))
                rep = lines_of(r.get("repair", {}).get("cheap_lines", {}).get(f))
                for l, c in lines_of(spec).items():
                    e = l not in exact_miss
                    agree[(c, e)] += 1
                    v = lines.setdefault((f, l), [False, False, False])
                    v[0] |= e
                    v[1] |= c
                    v[2] |= rep.get(l, c) if r.get("repair") else e
                    # the repair only adds: what small compiled stays counted
                    v[2] |= e and not r.get("repair", {}).get("set")
        if not lines:
            continue
        patches += 1
        n = len(lines)
        s = sum(v[0] for v in lines.values())
        cs = sum(v[1] for v in lines.values())
        rp = sum(v[0] or v[2] for v in lines.values())
        total, small, cheap_small, repaired = total + n, small + s, cheap_small + cs, repaired + rp
        if rp < n:
            still += 1
            # why, from the exact reasons of the first arch
            for r in by_arch.values():
                for rng in r["exact"]["ranges"]:
                    key = rng["reason"].split(":")[0]
                    why[key.split(" (")[0][:60]] += 1
                break
        per_patch.append((pid, n, s, rp))
    print("patches with counted lines: %d, lines: %d" % (patches, total))
    print("compiled on >=1 of %s:" % ", ".join(archs))
    print("  small (exact)            %d  %s" % (small, pct(small, total)))
    print("  small (cheap prediction) %d  %s" % (cheap_small, pct(cheap_small, total)))
    print("  repaired (cheap)         %d  %s" % (repaired, pct(repaired, total)))
    print("patches fully compiled: small %d, repaired %d; still with uncompiled lines: %d"
          % (sum(1 for p in per_patch if p[2] == p[1]),
             sum(1 for p in per_patch if p[3] == p[1]), still))
    tp, fp = agree[(True, True)], agree[(True, False)]
    fn, tn = agree[(False, True)], agree[(False, False)]
    print("cheap vs exact, per line and arch (small): agree %s; predicted compiled "
          "but not %d, predicted not but compiled %d, of %d"
          % (pct(tp + tn, tp + tn + fp + fn), fp, fn, tp + tn + fp + fn))
    print("why lines stay uncompiled (exact reasons, small):")
    for k, v in why.most_common(12):
        print("  %5d  %s" % (v, k))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    cmd, work = sys.argv[1], os.path.abspath(sys.argv[2])
    os.environ.setdefault("LOREBOT_CACHE", "/var/tmp/lorebot-bench-cover/cache")
    os.makedirs(work, exist_ok=True)
    if cmd == "prepare":
        prepare(work)
    elif cmd == "measure":
        measure(work, sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    elif cmd == "report":
        report(work, sys.argv[3:] or ["x86_64", "arm64"])
    elif cmd == "cost":
        cost(work, int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "x86_64")
    elif cmd == "costreport":
        costreport(work)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

usage: bench/coverage.py prepare WORK [REGEX]  the commits, WORK/list; with REGEX
                                             only the patches whose diff matches it
                                             (re.M: ^ at each line)
                                             (same ids as the whole corpus' run)
       bench/coverage.py measure WORK ARCH [STEP]  WORK/ARCH.jsonl (hours: nice);
                                             every STEP-th patch of the list, in
                                             an order whose every prefix is spread
                                             over it (resumes where it stopped)
       bench/coverage.py report WORK [ARCH...] [--also-in WORK2]  the numbers (of the
                                             patches WORK2 has measured too: two tools
                                             compared on the same patches)
       bench/coverage.py cost WORK N [ARCH]  N of the patches that apply to
                                             mm-new built with lorebot build:
                                             small, a twin repaired (warms the
                                             repaired base), repaired:
                                             WORK/cost.jsonl; --no-include leaves
                                             out the patches to include/
       bench/coverage.py costreport WORK
env:   LOREBOT_CACHE (the build directories; default /var/tmp/lorebot-bench-cover/cache)
       COVER_MEASURE (measure: the tool to run instead of build/bench/cover-measure,
       e.g. a copy built at an older commit, to compare on the same patches)
       COVER_FIRST_ARCH (measure: the build's first arch; on any other the repair
       takes the other branch of what the first keeps on, as lorebot build does)
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
import time

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


def prepare(work, pattern=None):
    import re
    only = re.compile(pattern, re.M) if pattern else None
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
        if only and not only.search(diff):
            stats["not matching the pattern"] += 1
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
        rows.append((pid, pair[0], pair[1], how, source, mid, " ".join(subject.split())))
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


def patches(work):
    """WORK/patches.tsv: id -> [how, source, message-id, subject]; a
    subject folded over lines (as prepare wrote it before it unfolded
    them) is joined again"""
    out, last = {}, None
    for line in open(os.path.join(work, "patches.tsv")):
        f = line.rstrip("\n").split("\t")
        if line.startswith("#"):
            continue
        if len(f) < 5 and last:
            out[last][3] += " " + line.strip()
            continue
        out[f[0]] = f[1:]
        last = f[0]
    return out


def spread(rows):
    """rows in an order any prefix of which is spread evenly over them
    (bit-reversed indices): a run stopped early is still an even sample"""
    bits = max(1, (len(rows) - 1).bit_length())
    key = lambda i: int(format(i, "0%db" % bits)[::-1], 2)
    return [rows[i] for i in sorted(range(len(rows)), key=key)]


def measure(work, arch, step=1):
    tool = os.environ.get("COVER_MEASURE")
    if not tool:
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
        first = os.environ.get("COVER_FIRST_ARCH")
        subprocess.run(["nice", "-n", "15", tool, conf, repo, arch, base] +
                       ([first] if first else []),
                       input="".join(todo).encode(), stdout=o, check=True)


def run_build(work, branch, arch, extra):
    """lorebot build of branch on mm-new: (its JSON, wall s, CPU s of it and
    every process it started)"""
    # not measure's bot.conf: the two may run at once
    conf = os.path.join(work, "cost.conf")
    with open(conf, "w") as f:
        # build.repair is off by default: --no-repair alone makes the small build
        f.write("[build]\n\tprofile = small\n\tjobs = 2\n\ttimeout = 3h\n\trepair = true\n")
    cmd = ["nice", "-n", "10", os.path.join(TOP, "build/lorebot"), "--config", conf, "build",
           "--repo", os.path.join(work, "repo.git"), "--series", branch, "--base", "mm-new",
           "--arch", arch, "--log-dir", os.path.join(work, "logs", branch.replace("/", "-")),
           "--json"] + extra
    # the CPU time of the build's cpuacct cgroup: /usr/bin/time (wait4's
    # rusage) misses the sandboxed make's children, which bwrap's init
    # reaps, and the wall time is the machine's load as much as the build
    cg = "/sys/fs/cgroup/cpuacct/lorebot-cost.%d.%d" % (os.getpid(), time.monotonic_ns())
    os.mkdir(cg)
    start = time.monotonic()
    r = subprocess.run(["sh", "-c", 'echo $$ >"$0/tasks" && exec "$@"', cg] + cmd,
                       capture_output=True)
    wall = time.monotonic() - start
    with open(os.path.join(cg, "cpuacct.usage")) as f:
        cpu = int(f.read()) / 1e9
    try:
        os.rmdir(cg)
    except OSError:
        pass        # a process the build left behind: its CPU is counted, the group stays
    try:
        d = json.loads(r.stdout)
    except ValueError:
        d = None
    return d, wall, cpu


def twin(repo, work, parent, commit, pid):
    """commit with a blank line before each changed .c/.h file: what
    the twin compiles, ccache cannot give the commit's own units (every
    line number differs), and its configuration is the commit's"""
    _, names = git(repo, "diff", "--name-only", "--diff-filter=AM", parent, commit)
    idx = os.path.join(work, "index.twin")
    env = {"GIT_INDEX_FILE": idx}
    if os.path.exists(idx):
        os.unlink(idx)
    git(repo, "read-tree", commit, env=env)
    for path in names.split("\n"):
        if not counted(path):
            continue
        blob = subprocess.run(["git", "--git-dir", repo, "cat-file", "blob",
                               commit + ":" + path], capture_output=True).stdout
        _, oid = git(repo, "hash-object", "-w", "--stdin", inp=b"\n" + blob)
        git(repo, "update-index", "--cacheinfo", "100644,%s,%s" % (oid, path), env=env)
    _, tree = git(repo, "write-tree", env=env)
    return commit_tree(repo, tree, parent, pid + " twin\n")


def cost(work, n, arch, no_include=False):
    """Per series, on warm bases, with its own units compiled for the first
    time in each: small (--no-repair), then its twin repaired (the
    repaired configuration's base made, when no earlier series made it),
    then the series repaired: its repair and its units on a warm base"""
    rows = [l.split() for l in open(os.path.join(work, "list"))]
    how = {k: v[0] for k, v in patches(work).items()}
    repo = os.path.join(work, "repo.git")
    _, base = git(repo, "rev-parse", "mm-new")
    applies = [r for r in rows if how.get(r[0]) in ("apply", "files") and r[1] == base]
    if no_include:
        # a change to include/ recompiles hundreds of units in each build
        # (minutes to an hour here): left out when time is short
        applies = [r for r in applies if not any(
            p.startswith("include/") for p in
            git(repo, "diff", "--name-only", r[1], r[2])[1].split())]
    step = max(1, len(applies) // n)
    # spread: what a run stopped early measured is spread over the list
    sample = spread(applies[::step][:n])
    out = os.path.join(work, "cost.jsonl")
    done = set()
    if os.path.exists(out):
        done = {json.loads(l)["id"] for l in open(out)}
    # the small profile's base first (a twin: the sample's own units stay cold)
    pid, parent, commit = sample[0]
    git(repo, "update-ref", "refs/heads/cost/warm", twin(repo, work, parent, commit, "warm"))
    d, wall, _ = run_build(work, "cost/warm", arch, ["--no-repair"])
    print("small base: %s, %.0f s" % ((d or {}).get("status"), wall), flush=True)
    for pid, parent, commit in sample:
        if pid in done:
            continue
        branch = "cost/" + pid
        git(repo, "update-ref", "refs/heads/" + branch, commit)
        git(repo, "update-ref", "refs/heads/" + branch + "-twin",
            twin(repo, work, parent, commit, pid))
        rec = {"id": pid, "arch": arch}
        for name, br, extra in (("small", branch, ["--no-repair"]),
                                ("twin", branch + "-twin", []),
                                ("repaired", branch, [])):
            d, wall, cpu = run_build(work, br, arch, extra)
            a = d["archs"][0] if d else {}
            c = a.get("coverage", {})
            rec[name] = {"wall": wall, "cpu": cpu, "status": a.get("status"),
                         "seconds": a.get("seconds"),
                         "changed": c.get("changed"), "compiled": c.get("compiled"),
                         "other_arch": c.get("other_arch"),
                         "repair_ran": c.get("repair", {}).get("ran"),
                         "repair_used": c.get("repair", {}).get("used"),
                         "repair_ms": c.get("repair", {}).get("ms"),
                         "seeded": c.get("repair", {}).get("seeded"),
                         "base_built": c.get("repair", {}).get("base_built"),
                         "base_reused": a.get("base", {}).get("reused"),
                         "config": c.get("repair", {}).get("config")}
            if d and name != "small" and not rec[name]["repair_ran"]:
                # a "repaired" build that did not try is small measured twice
                sys.exit("cost: %s: %s build made no repair (build.repair off?)" % (pid, name))
            if name == "small" and rec[name]["changed"] == rec[name]["compiled"]:
                # all compiled: nothing to repair, the repaired build is this one
                break
        with open(out, "a") as o:
            o.write(json.dumps(rec) + "\n")
        print(pid, {k: (v["wall"], v["cpu"], v["status"]) for k, v in rec.items()
                    if isinstance(v, dict)}, flush=True)


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
    # cost-norepair.jsonl: an earlier run of the same series with the
    # repair off, whose small builds were the first to compile the
    # series' units; a second small build of them hits the ccache and is
    # no cold build.  Its small figures are the ones to compare with.
    first = os.path.join(work, "cost-norepair.jsonl")
    if os.path.exists(first):
        earlier = {r["id"]: r["small"] for r in map(json.loads, open(first))}
        recs = [dict(r, small=earlier.get(r["id"], r["small"])) for r in recs]
        took = [r["id"] for r in recs if r["id"] in earlier]
        if took:
            print("small builds of %s from cost-norepair.jsonl (their first, cold "
                  "ones)" % " ".join(took))
    # a series whose small build made its base is no series on a warm base
    cold = [r["id"] for r in recs if not r["small"].get("base_reused")]
    recs = [r for r in recs if r["small"].get("base_reused") and
            r.get("repaired", r["small"]).get("status")]
    if cold:
        print("left out, the small base made by their build: %s" % " ".join(cold))
    for key in ("wall", "cpu"):
        # a series with nothing to repair costs what small does: 1.0x
        warm = [r.get("repaired", r["small"])[key] / r["small"][key] for r in recs]
        print("%s: %d series; repaired / small on warm bases, the series' units "
              "cold: median %.2fx p90 %.2fx (small median %.1f s)"
              % (key, len(recs), quantile(warm, .5), quantile(warm, .9),
                 quantile([r["small"][key] for r in recs], .5)))
    recs = [dict(r, repaired=r.get("repaired", r["small"])) for r in recs]
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


def dates(work):
    """Message-ID -> the mail's date (YYYY-MM-DD), from the corpus'
    Date headers; kept in WORK/dates.tsv"""
    path = os.path.join(work, "dates.tsv")
    if not os.path.exists(path):
        import email.utils
        out = {}
        for mbox in mboxes():
            for m in mailbox.mbox(mbox.name):
                mid = str(m["Message-ID"]).strip()
                try:
                    d = email.utils.parsedate_to_datetime(str(m["Date"]))
                    out.setdefault(mid, d.strftime("%Y-%m-%d"))
                except (TypeError, ValueError):
                    pass
            mbox.close()
        with open(path, "w") as f:
            for k, v in sorted(out.items()):
                f.write("%s\t%s\n" % (k, v))
    return dict(l.rstrip("\n").split("\t") for l in open(path))


def mboxes():
    """The corpus' mailboxes, as temporary files"""
    for name in ("merged", "recent"):
        t = tempfile.NamedTemporaryFile(suffix=".mbox")
        with gzip.open(os.path.join(HERE, "corpus", name + ".mbox.gz")) as f:
            t.write(f.read())
        t.flush()
        yield t
    if os.path.exists(REVIEW):
        with tarfile.open(REVIEW) as tar:
            for ti in sorted(tar.getmembers(), key=lambda x: x.name):
                if ti.name.endswith(".mbox"):
                    t = tempfile.NamedTemporaryFile(suffix=".mbox")
                    t.write(tar.extractfile(ti).read())
                    t.flush()
                    yield t


# classes of lines no build of the 6.12 stand-in can compile
STAND_IN = ("option not in the 6.12 tree (added by its series or later)",
            "a new file whose Makefile hunk did not fit 6.12 (taken by the files that fit)",
            "its unit did not preprocess after the patch (a header its series adds)")


SRCARCH = {"x86_64": "x86", "arm64": "arm64", "riscv": "riscv"}


def why_class(reason, arch, fails, file, repaired=False, measured=()):
    """The class of a line no arch compiled after the repair: its reason
    on the small profile (exact method), and why the repair could not
    enable the option it names (fails: CONFIG_X -> the repair's why).
    measured: the source arches built (arch/x86 of x86_64, ...), whose
    own code is classed by its reason like the rest"""
    import re
    own = file.startswith("arch/") and file.split("/")[1] in measured
    if not own and (arch or file.startswith("arch/")):
        return "another architecture's code"
    if "no unit" in reason or "includes it" in reason:
        if repaired:
            # the units the repair adds are known by their readers only
            return "a header no unit of the base reads; the repair changed options, " \
                "none of its readers predicted built"
        return "a header no unit of the base reads; no reader found that options build"
    if reason.startswith("not built (its Makefile lines hold"):
        # the exact method found no unit: the file's did not preprocess
        return "its unit did not preprocess after the patch (a header its series adds)"
    if "no Makefile line builds" in reason:
        # a patch taken by the files that fit: its Makefile hunk did not
        return "a new file whose Makefile hunk did not fit 6.12 (taken by the files that fit)"
    if "needs !CONFIG_" in reason:
        return "needs an option off (not turned off: lines need it on, or Kconfig keeps it)"
    syms = re.findall(r"CONFIG_[A-Z0-9_]+", reason)
    if not syms and reason.startswith("inside #"):
        return "inside an #if on no option (an arch's macros, BITS_PER_LONG)"
    for sym in syms:
        w = fails.get(sym)
        if w is None:
            continue
        # a dependency that failed itself: its reason is the root
        for _ in range(5):
            dep = [d for d in re.findall(r"[A-Z0-9_]+", w.split(":")[0])
                   if "CONFIG_" + d in fails and "CONFIG_" + d != sym]
            if not w.startswith("depends on") or not dep:
                break
            sym = "CONFIG_" + dep[0]
            w = fails[sym]
        if "COMPILER" in w:
            return "option that needs clang (HAVE_KMSAN_COMPILER)"
        if "not a Kconfig symbol" in w:
            return "option not in the 6.12 tree (added by its series or later)"
        if "declared for" in w:
            return "option of another architecture"
        if "!" in w:
            return "option needs another turned off (e.g. !SLUB_TINY)"
        if "no prompt" in w:
            return "hidden option only drivers or an arch select"
        if w.startswith("depends on"):
            return "option whose dependencies the repair could not meet"
        return "option olddefconfig did not keep"
    if syms:
        return "option enabled, lines still predicted not compiled"
    return (reason.split(":")[0].split(" (")[0] or "no reason given")[:60]


def ids_in(work, archs):
    """the patches measured on every arch of archs in work"""
    seen = [set(json.loads(l)["id"] for l in open(os.path.join(work, a + ".jsonl")))
            for a in archs]
    return set.intersection(*seen) if seen else set()


def report(work, archs, also=None):
    recs = collections.defaultdict(dict)
    keep = ids_in(also, archs) if also else None
    for arch in archs:
        for line in open(os.path.join(work, arch + ".jsonl")):
            r = json.loads(line)
            if keep is None or r["id"] in keep:
                recs[r["id"]][arch] = r
    meta = patches(work)
    when = dates(work)
    measured = []
    agree = collections.Counter()
    why = collections.Counter()
    why_patches = collections.defaultdict(set)
    timing = collections.defaultdict(list)
    for pid, by_arch in sorted(recs.items()):
        if len(by_arch) < len(archs) or any("cheap_small_lines" not in r or
                                            "error" in r for r in by_arch.values()):
            continue
        lines = {}      # (file, line) -> [exact small, cheap small, cheap repaired] on any arch
        reasons = {}    # (file, line) -> (reason, arch) of the small profile, first arch's
        fails = {}
        for arch, r in by_arch.items():
            miss = r["exact"]["miss"]
            rep_ = r.get("repair") or {}
            timing["exact " + arch].append(r.get("exact_ms", 0) / 1000.0)
            if rep_ and not rep_.get("memo") and "ms" in rep_:
                timing["repair " + arch].append(rep_["ms"] / 1000.0)
                timing["rounds " + arch].append(rep_.get("rounds", 0))
            for f_ in rep_.get("failed", []):
                fails.setdefault(f_["symbol"], f_["why"])
            for rng in r["exact"]["ranges"]:
                for l in spans(rng["spans"]):
                    reasons.setdefault((rng["file"], l), (rng["reason"], rng["arch"]))
            for f, spec in r["cheap_small_lines"].items():
                exact_miss = spans(miss.get(f, ""))
                rep = lines_of(rep_.get("cheap_lines", {}).get(f))
                for l, c in lines_of(spec).items():
                    e = l not in exact_miss
                    agree[(c, e)] += 1
                    v = lines.setdefault((f, l), [False, False, False])
                    v[0] |= e
                    v[1] |= c
                    v[2] |= rep.get(l, c) if rep_ else e
                    # no repaired .config: what small compiled stays counted
                    v[2] |= e and not (rep_.get("set") or rep_.get("unset"))
        if not lines:
            continue
        n = len(lines)
        s = sum(v[0] for v in lines.values())
        cs = sum(v[1] for v in lines.values())
        rp = sum(v[0] or v[2] for v in lines.values())
        stand_in = 0
        for key, v in lines.items():
            if not (v[0] or v[2]):
                reason, arch = reasons.get(key, ("", False))
                k = why_class(reason, arch, fails, key[0],
                              any((r.get("repair") or {}).get("set") or
                                  (r.get("repair") or {}).get("unset")
                                  for r in by_arch.values()),
                              [SRCARCH.get(a, a) for a in archs])
                why[k] += 1
                why_patches[k].add(pid)
                stand_in += k in STAND_IN
        mid = meta.get(pid, ["", "", ""])[2]
        measured.append((pid, when.get(mid, ""), n, s, cs, rp, stand_in,
                         meta.get(pid, [""])[0]))

    def table(rows, title):
        total = sum(r[2] for r in rows)
        print("%s: %d patches, %d lines; compiled on >=1 of %s:"
              % (title, len(rows), total, ", ".join(archs)))
        for name, k in (("small (exact)", 3), ("small (cheap prediction)", 4),
                        ("repaired (cheap)", 5)):
            n = sum(r[k] for r in rows)
            print("  %-26s %5d  %s" % (name, n, pct(n, total)))
        print("  patches fully compiled: small %d, repaired %d; still with uncompiled "
              "lines: %d" % (sum(1 for r in rows if r[3] == r[2]),
                             sum(1 for r in rows if r[5] == r[2]),
                             sum(1 for r in rows if r[5] < r[2])))
        # what 6.12 cannot have: options and Makefile lines of their series
        t2 = total - sum(r[6] for r in rows)
        print("  without the %d lines the 6.12 stand-in cannot compile (options, "
              "Makefile lines their series adds): small %s, repaired %s of %d"
              % (total - t2, pct(sum(r[3] for r in rows), t2),
                 pct(sum(r[5] for r in rows), t2), t2))
        shares = [r[5] / r[2] for r in rows if r[2]]
        print("  per patch, repaired share: median %s, mean %s"
              % (pct(quantile(shares, .5), 1), pct(sum(shares) / max(1, len(shares)), 1)))
    table(measured, "all")
    dated = sorted((r for r in measured if r[1]), key=lambda r: r[1])
    if len(dated) > 1:
        half = len(dated) // 2
        older, newer = dated[:half], dated[half:]
        table(older, "older half (%s .. %s)" % (older[0][1], older[-1][1]))
        table(newer, "newer half (%s .. %s)" % (newer[0][1], newer[-1][1]))
    # the base 6.12 really is (the patch applies or is in it) against the
    # tree made of the files that fit
    whole = [r for r in measured if r[7] in ("apply", "revert")]
    if whole and len(whole) < len(measured):
        table(whole, "on 6.12 itself (applies or reverts)")
        table([r for r in measured if r not in whole], "by the files that fit 6.12")
    tp, fp = agree[(True, True)], agree[(True, False)]
    fn, tn = agree[(False, True)], agree[(False, False)]
    print("cheap vs exact, per line and arch (small): agree %s; predicted compiled "
          "but not %d, predicted not but compiled %d, of %d"
          % (pct(tp + tn, tp + tn + fp + fn), fp, fn, tp + tn + fp + fn))
    print("lines no arch compiled after the repair, by class (lines, patches):")
    for k, v in why.most_common():
        print("  %5d %4d  %s" % (v, len(why_patches[k]), k))
    print("seconds per patch (median, p90); repairs not kept from an earlier patch:")
    for k in sorted(timing):
        v = timing[k]
        print("  %-16s n=%3d  median %.1f  p90 %.1f" % (k, len(v), quantile(v, .5),
                                                         quantile(v, .9)))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    cmd, work = sys.argv[1], os.path.abspath(sys.argv[2])
    os.environ.setdefault("LOREBOT_CACHE", "/var/tmp/lorebot-bench-cover/cache")
    os.makedirs(work, exist_ok=True)
    if cmd == "prepare":
        prepare(work, sys.argv[3] if len(sys.argv) > 3 else None)
    elif cmd == "measure":
        measure(work, sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    elif cmd == "report":
        args = sys.argv[3:]
        also = None
        if "--also-in" in args:
            i = args.index("--also-in")
            also = os.path.abspath(args[i + 1])
            del args[i:i + 2]
        report(work, args or ["x86_64", "arm64"], also)
    elif cmd == "cost":
        cost(work, int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else "x86_64",
             "--no-include" in sys.argv[5:])
    elif cmd == "costreport":
        costreport(work)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

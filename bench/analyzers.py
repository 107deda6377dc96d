#!/usr/bin/env python3
"""What the kernel's checkers cost lorebot build per patch, and what they find,
on real mm patches (bench/README.md, "The kernel's checkers on the touched
files").

The patches are bench/coverage.py's (WORK from `coverage.py prepare`): of
those that apply to mm-new, the ones touching a .c file under mm/ that the
small x86_64 profile compiles (its object is in obj.manifest, the base's), N of them
evenly spaced over the list sorted by id.  Each is built alone on mm-new
with build/lorebot build, small profile, -j2, sparse and clang (x86_64) on,
--no-repair --no-w1 (W=1 is not what is measured); Coccinelle
(build.coccicheck) only on COCCI of them, those whose touched mm/*.c files
are the smallest at the base (minutes per file and patch).  They run in id
order, a Coccinelle one after every fourth other, so that a run cut short
has some of each; `touch WORK/analyzers.stop` stops it between two builds.

usage: bench/analyzers.py run WORK N [COCCI]   WORK/analyzers.jsonl (resumes)
       bench/analyzers.py report WORK          the cost table and the findings
env:   LOREBOT_CACHE (default /var/tmp/lorebot-bench-cover/cache, whose
       small x86_64 base of mm-new is built)
"""
import glob
import json
import os
import subprocess
import sys

from coverage import TOP, git, quantile

TOOLS = ("sparse", "clang", "coccinelle")
CHECKS = ("sparse", "clang", "coccicheck")


def build_dir(arch, base):
    d = glob.glob(os.path.join(os.environ["LOREBOT_CACHE"], "builds", arch,
                               "small-%s-*" % base[:12]))
    d = [x for x in d if os.path.isdir(x)]
    if len(d) != 1:
        sys.exit("analyzers: want one small %s build directory of %s, have %s"
                 % (arch, base[:12], d))
    return d[0]


def sample(work, n, cocci, arch):
    """[(id, commit, [compiled mm .c files], subject, cocci?)] in run order"""
    repo = os.path.join(work, "repo.git")
    _, base = git(repo, "rev-parse", "mm-new")
    bd = build_dir(arch, base)
    obj = os.path.join(bd, "obj")
    # the base's objects as its last trusted build left them (ci/objguard.c's
    # record): obj/ itself lacks those a series' build removed
    compiled = set(l.rstrip("\n").split("\t", 1)[-1]
                   for l in open(os.path.join(bd, "obj.manifest")))
    info = {}
    for line in open(os.path.join(work, "patches.tsv")):
        f = line.rstrip("\n").split("\t")
        if not line.startswith("#") and len(f) >= 5 and f[0].startswith("p"):
            info[f[0]] = (f[1], f[4])
    rows = []
    for pid, parent, commit in (l.split() for l in open(os.path.join(work, "list"))):
        if parent != base or info.get(pid, ("",))[0] != "apply":
            continue
        _, names = git(repo, "diff", "--name-only", base, commit)
        files = [p for p in names.split() if p.startswith("mm/") and p.endswith(".c") and
                 p[:-2] + ".o" in compiled]
        if files:
            rows.append((pid, commit, files, info[pid][1]))
    rows.sort()
    pick = [rows[i * len(rows) // n] for i in range(min(n, len(rows)))]

    def size(r):
        return sum(int(git(repo, "cat-file", "-s", "%s:%s" % (base, f))[1]) for f in r[2])

    withc = [r + (True,) for r in sorted(pick, key=lambda r: (size(r), r[0]))[:cocci]]
    withc.sort()
    cids = set(c[0] for c in withc)
    out = []
    for r in pick:
        if r[0] in cids:
            continue
        out.append(r + (False,))
        if len(out) % 5 == 4 and withc:
            out.append(withc.pop(0))
    return out + withc, len(rows), obj


def step_seconds(logdir):
    """{step: seconds} from the step logs' birth and modification times"""
    out = {}
    for p in glob.glob(os.path.join(logdir, "*", "*.log")):
        st = subprocess.run(["stat", "-c", "%W %.9Y", p], capture_output=True,
                            text=True).stdout.split()
        born, mod = int(st[0]), float(st[1])
        if born:
            out[os.path.basename(p)[:-4].split("-", 1)[1]] = round(mod - born, 1)
    return out


def run_one(work, pid, commit, arch, cocci):
    repo = os.path.join(work, "repo.git")
    branch = "analyzers/" + pid
    git(repo, "update-ref", "refs/heads/" + branch, commit)
    conf = os.path.join(work, "analyzers.conf")
    with open(conf, "w") as f:
        f.write("[build]\n\tprofile = small\n\tjobs = 2\n\ttimeout = 3h\n\tsparse = true\n"
                "\tclang = %s\n\tcoccicheck = %s\n" % (arch, "true" if cocci else "false"))
    logdir = os.path.join(work, "analyzers-logs", pid)
    subprocess.run(["rm", "-rf", logdir], check=True)
    timef = os.path.join(work, "analyzers.time")
    cmd = ["nice", "-n", "10", "/usr/bin/time", "-f", "%e %U %S", "-o", timef,
           os.path.join(TOP, "build/lorebot"), "--config", conf, "build", "--repo", repo,
           "--series", branch, "--base", "mm-new", "--arch", arch, "--log-dir", logdir,
           "--no-repair", "--no-w1", "--json"]
    r = subprocess.run(cmd, capture_output=True)
    with open(os.path.join(work, "analyzers-logs", pid + ".stderr"), "wb") as f:
        f.write(r.stderr)
    wall, user, sys_ = (float(x) for x in open(timef).read().split()[-3:])
    try:
        d = json.loads(r.stdout)
    except ValueError:
        d = {}
    a = (d.get("archs") or [{}])[0]
    p = (a.get("patches") or [{}])[0]
    rec = {"id": pid, "commit": commit, "arch": arch, "cocci": cocci, "exit": r.returncode,
           "wall": wall, "cpu": round(user + sys_, 1), "status": a.get("status"),
           "infra": a.get("infra"), "seconds": p.get("seconds"), "steps": step_seconds(logdir),
           "skipped": {c: a.get(c + "_skipped") for c in CHECKS if a.get(c + "_skipped")},
           "logdir": logdir, "findings": [], "old": {}}
    for c in CHECKS:
        rec[c + "_files"] = p.get(c + "_files")
        rec[c + "_seconds"] = p.get(c + "_seconds")
    for f in a.get("findings", []):
        t = f.get("tool") or "gcc"
        if f.get("new"):
            rec["findings"].append({k: f.get(k) for k in ("tool", "file", "line", "column",
                                                          "severity", "message", "patch")})
            rec["findings"][-1]["tool"] = t
        else:
            rec["old"][t] = rec["old"].get(t, 0) + 1
    return rec


def run(work, n, cocci, arch="x86_64"):
    rows, eligible, obj = sample(work, n, cocci, arch)
    out = os.path.join(work, "analyzers.jsonl")
    done = set()
    if os.path.exists(out):
        done = {json.loads(l)["id"] for l in open(out)}
    print("%d patches apply and touch a compiled mm/*.c; %d picked" % (eligible, len(rows)),
          flush=True)
    for pid, commit, files, subject, withc in rows:
        if pid in done:
            continue
        if os.path.exists(os.path.join(work, "analyzers.stop")):
            print("stopped: %s exists" % os.path.join(work, "analyzers.stop"))
            break
        prepared = os.path.exists(os.path.join(obj, ".lorebot-clang"))
        rec = run_one(work, pid, commit, arch, withc)
        rec.update({"subject": subject, "mm_files": files, "clang_prepared": prepared})
        with open(out, "a") as o:
            o.write(json.dumps(rec) + "\n")
        print(pid, rec["status"], "wall %.0f" % rec["wall"],
              {c: rec[c + "_seconds"] for c in CHECKS}, len(rec["findings"]), "new",
              flush=True)


def stats(v):
    v = [x for x in v if x is not None]
    if not v:
        return "-"
    return "%.1f / %.1f / %.1f s (%d)" % (quantile(v, .5), quantile(v, .9), max(v), len(v))


def report(work):
    recs = [json.loads(l) for l in open(os.path.join(work, "analyzers.jsonl"))]
    ok = [r for r in recs if r["status"] not in (None, "infra")]
    print("%d builds (%d not infra); median / p90 / max (n):" % (len(recs), len(ok)))
    first = [r for r in ok if not r["clang_prepared"]]
    warm = [r for r in ok if r["clang_prepared"]]
    for r in first:
        print("clang, once per build directory (%s): its .config %s s, then its prepare "
              "with the base's clang diagnostics of %d file(s) %s s"
              % (r["id"], r["steps"].get("base-clang-config"), r["clang_files"] or 0,
                 r["steps"].get("base-clang")))
    plain = [r for r in warm if not r["cocci"]]
    # make C=2 checks an object only once it compiles: where gcc failed on a
    # touched file, sparse and Coccinelle did not run (clang still compiles it)
    built = [r for r in ok if not any(f["tool"] == "gcc" and f["severity"] == "error"
                                      for f in r["findings"])]
    print("| step | sparse | clang | Coccinelle | gcc, the rest of the build |")
    print("| --- | --- | --- | --- | --- |")
    print("| the base's diagnostics of the touched files (once per build directory and file) "
          "| %s | %s | %s | the base made again first (the previous series' objects): %s |"
          % (stats([r["steps"].get("base-sparse") for r in ok]),
             stats([r["steps"].get("base-clang") for r in warm]),
             stats([r["steps"].get("base-coccicheck") for r in ok]),
             stats([r["steps"].get("base") or r["steps"].get("base-again") for r in warm])))
    print("| per patch, the touched files checked | %s | %s | %s | the image's make: %s |"
          % (stats([r["sparse_seconds"] for r in built]), stats([r["clang_seconds"] for r in ok]),
             stats([r["coccicheck_seconds"] for r in built if r["cocci"]]),
             stats([r["steps"].get("patch-1") for r in ok])))
    print("| the whole lorebot build, wall | | | with Coccinelle: %s | without: %s |"
          % (stats([r["wall"] for r in warm if r["cocci"]]), stats([r["wall"] for r in plain])))
    print("sparse and Coccinelle per patch: the %d of %d builds where gcc compiled the "
          "touched files" % (len(built), len(ok)))
    nfiles = [r["sparse_files"] for r in ok]
    print("touched .c files checked per patch: %s; sparse %s, clang %s, Coccinelle %s"
          % (sorted(nfiles), sum(nfiles), sum(r["clang_files"] or 0 for r in ok),
             sum(r["coccicheck_files"] or 0 for r in ok if r["cocci"])))
    for t in ("gcc",) + TOOLS:
        new = sum(1 for r in ok for f in r["findings"] if f["tool"] == t)
        old = sum(r["old"].get(t, 0) for r in ok)
        print("%-10s new %d, pre-existing (not new) %d" % (t, new, old))
    for r in recs:
        if r["status"] in (None, "infra") or r["skipped"]:
            print("%s: status %s %s %s exit %d, logs %s" % (r["id"], r["status"], r["infra"],
                                                          r["skipped"], r["exit"], r["logdir"]))
    print("\nnew findings:")
    for r in ok:
        for f in r["findings"]:
            print("%s %s | %s | %s:%s | %s | %s" % (r["id"], r["commit"][:12], f["tool"],
                                                   f["file"], f["line"], f["message"],
                                                   r["subject"][:70]))
    print("\nper patch:")
    for r in recs:
        print("%s %-8s files %s wall %6.1f cpu %6.1f sparse %s clang %s cocci %s steps %s"
              % (r["id"], r["status"], r["sparse_files"], r["wall"], r["cpu"],
                 r["sparse_seconds"], r["clang_seconds"], r["coccicheck_seconds"],
                 r["steps"]))


def main(argv):
    os.environ.setdefault("LOREBOT_CACHE", "/var/tmp/lorebot-bench-cover/cache")
    if argv[1:2] == ["run"] and len(argv) in (4, 5):
        run(os.path.abspath(argv[2]), int(argv[3]), int((argv[4:] or [3])[0]))
    elif argv[1:2] == ["report"] and len(argv) == 3:
        report(os.path.abspath(argv[2]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

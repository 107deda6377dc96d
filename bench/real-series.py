#!/usr/bin/env python3
"""Series and patch mails as b4 and git read them, on real list traffic.

    real-series.py build MIRROR OUT [--since D] [--until D] [--threads N]
    real-series.py sample OUT FILE...
    real-series.py compare OUT [--jobs N] [--json FILE] [--list]

MIRROR is a bare git mirror of a public-inbox epoch (one commit a message,
the message in blob 'm'), as the fetch of
github:linux-mailinglist-archives/<list>.0 brings it.

build writes into OUT, from the messages dated SINCE..UNTIL:
  mails.mbox     every patch mail (a [PATCH]-like subject that is not a
                 reply, or a body with a diff, or an attachment), mboxrd
  threads/K.mbox every message of a thread whose root is a patch or a
                 cover letter (N threads: every one with two versions or
                 more, then a sample of the others chosen by a hash of
                 the root's Message-ID), and threads.tsv (K, root, size,
                 versions, date)
sample makes OUT of checked-in files instead (t0109's sample): each .mbox a
thread, each .eml a patch mail.
compare reads them:
  mails     `lorebot mailinfo --compare --json mails.mbox` against git
            mailinfo, field by field, with the class of each difference
            (documented: lorebot mailinfo --differences), and the mails
            where git finds a patch and lorebot none
  threads   per thread, `lorebot series --mbox` against `b4 am -t -m`
            (b4 0.12, cover-letter trailers applied, as a maintainer
            would): the version b4 picks (the latest), its patches in
            order, complete or not, its cover letter, and the trailers of
            each patch (those of b4's commit message against lorebot's).
            b4 0.12 cannot read some folded headers: for b4 (never for
            lorebot) such a header is unfolded (counted).
A thread-level difference that is a design choice of lorebot (listed in
DESIGN below and in doc/technical/series.md) is counted apart and left out
of the agreement; any other is printed and makes the exit status 1.

LOREBOT (default build/lorebot) and B4 (default b4) are the programs.
"""
import argparse
import concurrent.futures
import email
import email.header
import email.policy
import email.utils
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
LOREBOT = os.environ.get("LOREBOT", os.path.join(TOP, "build", "lorebot"))
B4 = os.environ.get("B4", "b4")

REPLY = re.compile(r"(?i)^\s*(re|aw|fwd?|antw)\s*:")
PATCHY = re.compile(r"(?i)\[[^\]]*\b(patch|rfc)")
VERSION = re.compile(r"(?i)\[[^\]]*?\bv(\d+)\b[^\]]*\]")
DIFFISH = re.compile(rb"(?m)^(diff --git |--- \S.*\n\+\+\+ |Index: )")
ATTACH = re.compile(rb"(?im)^content-disposition:\s*(attachment|inline);")
ID = re.compile(r"<([^<>\s]+)>")
DIFFSTAT = re.compile(r"(?m)^\s*\d+ files? changed")


def load(path, name):
    """a helper of tests/ as a module"""
    spec = importlib.util.spec_from_file_location(name, os.path.join(TOP, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# b4 0.12 fails on some headers: made readable for it, never for lorebot
b4_copy = load("tests/b4-unfold.py", "b4_unfold").b4_copy
CORPUS = load("bench/corpus/build.py", "corpus_build")


def decoded(v):
    if v is None:
        return ""
    try:
        return str(email.header.make_header(email.header.decode_header(str(v))))
    except Exception:
        return str(v)


def ids(v):
    return ID.findall(str(v or ""))


def messages(repo, since, until):
    """(commit, raw bytes) of the messages committed in the window, oldest first"""
    return CORPUS.messages(repo, since, until, oldest_first=True)


def mboxrd(raw):
    raw = raw.replace(b"\r\n", b"\n")
    if raw.startswith(b"From "):
        raw = raw.split(b"\n", 1)[1]
    raw = re.sub(rb"(?m)^(>*From )", rb">\1", raw)
    return b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + raw.rstrip(b"\n") + b"\n\n"


def day_of(msg):
    try:
        return email.utils.parsedate_to_datetime(str(msg.get("Date"))).strftime("%Y-%m-%d")
    except Exception:
        return ""


def build(args):
    # threads may begin before the window and go on after it
    margin_since = "%d%s" % (int(args.since[:4]) - 1, args.since[4:])
    msgs = {}	# Message-ID -> (raw, parent ids, subject, day)
    order = []
    for _, raw in messages(args.mirror, margin_since, args.until_margin):
        h = email.message_from_bytes(raw.split(b"\n\n", 1)[0] + b"\n\n",
                                     policy=email.policy.compat32)
        mid = (ids(h.get("Message-ID")) or [None])[0]
        if not mid or mid in msgs:
            continue
        refs = ids(h.get("References"))
        irt = ids(h.get("In-Reply-To"))
        parents = irt[:1] + list(reversed(refs))
        msgs[mid] = (raw, parents, " ".join(decoded(h.get("Subject")).split()), day_of(h))
        order.append(mid)
    os.makedirs(os.path.join(args.out, "threads"), exist_ok=True)

    def in_window(mid):
        return args.since <= msgs[mid][3] < args.until

    # patch mails
    n = 0
    with open(os.path.join(args.out, "mails.mbox"), "wb") as f:
        for mid in order:
            raw, _, subj, _ = msgs[mid]
            if not in_window(mid):
                continue
            patchy = PATCHY.search(subj) and not REPLY.match(subj)
            if patchy or DIFFISH.search(raw) or ATTACH.search(raw):
                f.write(mboxrd(raw))
                n += 1
    print("%d patch mails (of %d messages in %s..%s)" %
          (n, sum(1 for m in order if in_window(m)), args.since, args.until))

    # threads: the root is the first known ancestor-less message
    def root_of(mid):
        seen = set()
        cur = mid
        while cur not in seen:
            seen.add(cur)
            nxt = next((p for p in msgs[cur][1] if p in msgs), None)
            if nxt is None:
                return cur
            cur = nxt
        return cur
    members = {}
    for mid in order:
        members.setdefault(root_of(mid), []).append(mid)
    cands = []
    for root, mids in members.items():
        subj = msgs[root][2]
        if not in_window(root) or REPLY.match(subj) or not PATCHY.search(subj):
            continue
        vers = set()
        for m in mids:
            s = msgs[m][2]
            if not REPLY.match(s) and PATCHY.search(s):
                v = VERSION.search(s)
                vers.add(int(v.group(1)) if v else 1)
        if len(mids) < 2 and not DIFFISH.search(msgs[root][0]):
            continue
        h = hashlib.sha1(root.encode()).hexdigest()
        cands.append((len(vers) < 2, h, root, mids, len(vers)))
    cands.sort()
    chosen = sorted(cands[:args.threads], key=lambda c: msgs[c[2]][3] + c[2])
    with open(os.path.join(args.out, "threads.tsv"), "w") as tsv:
        tsv.write("# thread\troot\tmessages\tversions\tdate\n")
        for k, (_, _, root, mids, nv) in enumerate(chosen):
            name = "%04d" % k
            with open(os.path.join(args.out, "threads", name + ".mbox"), "wb") as f:
                for m in mids:
                    f.write(mboxrd(msgs[m][0]))
            tsv.write("%s\t%s\t%d\t%d\t%s\n" % (name, root, len(mids), nv, msgs[root][3]))
    print("%d threads (%d with 2 versions or more) of %d candidates" %
          (len(chosen), sum(1 for c in chosen if not c[0]), len(cands)))


def sample(args):
    """OUT from checked-in files: each .mbox a thread (its root the first
    message without a parent in it), the patch mails of all of them and
    each .eml the mails"""
    os.makedirs(os.path.join(args.out, "threads"), exist_ok=True)
    mails = open(os.path.join(args.out, "mails.mbox"), "wb")
    tsv = open(os.path.join(args.out, "threads.tsv"), "w")
    tsv.write("# thread\troot\tmessages\tversions\tdate\n")
    for path in args.files:
        data = open(path, "rb").read()
        if path.endswith(".eml"):
            mails.write(mboxrd(data))
            continue
        raws = [re.sub(rb"(?m)^>(>*From )", rb"\1", r) for r in
                re.split(rb"(?m)^From mboxrd@z .*\n", data) if r.strip()]
        heads = [email.message_from_bytes(r.split(b"\n\n", 1)[0] + b"\n\n",
                                          policy=email.policy.compat32) for r in raws]
        known = set(ids(h.get("Message-ID"))[0] for h in heads)
        root = next(ids(h.get("Message-ID"))[0] for h in heads
                    if not set(ids(h.get("In-Reply-To")) + ids(h.get("References"))) & known)
        name = os.path.basename(path)[:-5]
        shutil.copy(path, os.path.join(args.out, "threads", name + ".mbox"))
        tsv.write("%s\t%s\t%d\t\t%s\n" % (name, root, len(raws), day_of(heads[0])))
        for r, h in zip(raws, heads):
            subj = " ".join(decoded(h.get("Subject")).split())
            if (PATCHY.search(subj) and not REPLY.match(subj)) or DIFFISH.search(r):
                mails.write(mboxrd(r))
    mails.close()
    tsv.close()


# ---------------------------------------------------------------- compare

FIELDS = ["author", "email", "subject", "date", "message", "patch"]


HUNK = re.compile(r"(?m)^(diff --git |--- \S.*\n\+\+\+ \S.*\n@@ -\d)")


def has_diff(text):
    """a patch git apply would find: a diff --git header or a hunk"""
    return bool(HUNK.search(text or ""))


def compare_mails(out, res):
    p = subprocess.run([LOREBOT, "mailinfo", "--compare", "--json",
                        os.path.join(out, "mails.mbox")],
                       capture_output=True, text=True)
    with open(os.path.join(out, "mailinfo.json"), "w") as f:
        f.write(p.stdout)
    d = json.loads(p.stdout)
    per_field = {f: 0 for f in FIELDS}
    classes = {}
    undoc = []
    git_only = []
    for m in d["mails"]:
        for f in m["fields"]:
            per_field[f["field"]] += 1
            cls = f["class"] or "UNDOCUMENTED"
            classes.setdefault(f["field"], {}).setdefault(cls, 0)
            classes[f["field"]][cls] += 1
            if not f["class"]:
                undoc.append((m["index"], f["field"]))
            if f["field"] == "patch" and has_diff(f["git"]) and not has_diff(f["lorebot"]):
                git_only.append(m["index"])
    res["mails"] = {"compared": d["compared"], "git_refused": d["git_refused"],
                    "differ": per_field, "classes": classes,
                    "undocumented": undoc, "git_patch_lorebot_none": git_only}


TRAILER = re.compile(r"^([A-Za-z][A-Za-z0-9-]*):\s+(.*\S)\s*$")


def split_am_mbox(data):
    """the messages of b4's mbox, as bytes (b4 keeps each one's charset)"""
    msgs, cur = [], None
    for line in data.splitlines(keepends=True):
        if line.startswith((b"From git@z ", b"From mboxrd@z ")):
            if cur is not None:
                msgs.append(b"".join(cur))
            cur = []
            continue
        if cur is not None:
            cur.append(line)
    if cur:
        msgs.append(b"".join(cur))
    return msgs


def trailer_block(body):
    """the trailers of the last paragraph before '---'"""
    head = re.split(r"(?m)^---\s*$", body, 1)[0]
    paras = [p for p in head.rstrip("\n").split("\n\n") if p.strip()]
    out = []
    if paras:
        for line in paras[-1].splitlines():
            mo = TRAILER.match(line)
            if mo:
                out.append("%s: %s" % (mo.group(1), mo.group(2)))
    return out


def run_b4(thread, root, where):
    """b4 am -t of the thread into the directory where (SLUG.mbx, SLUG.cover, t.err)"""
    copy = os.path.join(where, "b4.mbox")
    unfolded, zones = b4_copy(thread, copy)
    # no -n: the name b4 gives the mbox says the version it picked (v2_...)
    # no attestation: b4 would ask the DNS for DKIM keys
    env = dict(os.environ, GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="b4.attestation-policy",
               GIT_CONFIG_VALUE_0="off")
    p = subprocess.run([B4, "am", "-t", "-C", "-m", copy, "-o", where, root],
                       capture_output=True, env=env, cwd=where, timeout=600)
    os.unlink(copy)
    with open(os.path.join(where, "t.err"), "wb") as f:
        f.write(p.stderr)
    with open(os.path.join(where, "t.json"), "w") as f:
        json.dump({"unfolded": unfolded, "zones": zones, "rc": p.returncode}, f)


def read_b4(where):
    """what b4 picked: patches (Message-ID, trailers of the commit message), cover..."""
    with open(os.path.join(where, "t.json")) as f:
        r = json.load(f)
    r["err"] = open(os.path.join(where, "t.err"), "rb").read().decode("utf-8", "replace")
    mbx = [f for f in os.listdir(where) if f.endswith(".mbx")]
    r["patches"] = []
    r["version"] = None
    if mbx:
        mo = re.match(r"v(\d+)_", mbx[0])
        r["version"] = int(mo.group(1)) if mo else 1
        for raw in split_am_mbox(open(os.path.join(where, mbx[0]), "rb").read()):
            m = email.message_from_bytes(raw, policy=email.policy.default)
            mid = (ids(m["Message-Id"]) or [""])[0]
            body = m.get_content() if not m.is_multipart() else ""
            r["patches"].append((mid, trailer_block(body)))
    cover = os.path.join(where, mbx[0][:-4] + ".cover") if mbx else ""
    r["cover"] = None
    if cover and os.path.exists(cover):
        c = email.message_from_bytes(open(cover, "rb").read(), policy=email.policy.compat32)
        r["cover"] = (ids(c["Message-Id"]) or [None])[0]
    r["complete"] = "Thread incomplete" not in r["err"]
    return r


def run_lorebot(thread):
    p = subprocess.run([LOREBOT, "series", "--mbox", thread, "--json"],
                       capture_output=True, text=True, timeout=600)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"series": [], "error": p.stderr}


def pick(series, b4ids):
    """lorebot's answer for the thread: the current version b4's would be"""
    cur = [s for s in series if not s["superseded_by"] and s["patches"]]
    if not cur:
        return None
    top = max(s["version"] for s in cur)
    best = [s for s in cur if s["version"] == top]
    # of several sends of that version (two senders), the one b4's patches are in
    best.sort(key=lambda s: -len(set(p["msgid"] for p in s["patches"]) & set(b4ids)))
    return best[0]


def b4_mixes_sends(t):
    """b4 keys a thread's series by version alone: the patches or the
    cover letter it picks come from two sends of one version (a kernel and
    a userspace series in one thread, each under its own cover letter)"""
    sends = set(t["send_of"].get(mid) for mid, _ in t["b4"]["patches"])
    if t["b4"]["cover"]:
        sends.add(t["send_of"].get(t["b4"]["cover"]))
    return len(sends) > 1 and all(t["has_cover"].get(x) for x in sends)


def later_copy(t):
    """a patch posted again in its send: lorebot takes the later copy
    (a corrected patch sent in reply), b4 0.12 the first"""
    b4ids = [mid for mid, _ in t["b4"]["patches"]]
    ours = t["lorebot"]["patches"]
    twice = " ".join(x for x in t["problems"] if "posted twice" in x)
    diff = [(a, b) for a, b in zip(b4ids, ours) if a != b]
    return (len(b4ids) == len(ours) and diff and
            all("<%s>" % a in twice or "<%s>" % b in twice for a, b in diff))


def cover_without_diffstat(t):
    """patches without a version in reply to a cover letter of their count
    with a version but no diffstat: lorebot reads the cover letter's
    version, b4 0.12 reads them as v1 (or what a v2 patch later in the
    thread rerolls) without a cover letter"""
    c = t["lorebot"]["cover"]
    return (c and not t["b4"]["cover"] and t["lorebot"]["version"] != t["b4"]["version"]
            and not t["cover_diffstat"])


def b4_renumbers(t):
    """b4 0.12 numbers versions itself when the author posts a second
    patch without a version in the thread ("Assuming new revision"), even
    another patch: its version is not the subject's"""
    return ("Assuming new revision" in t["b4err"] and
            t["lorebot"]["patches"] == [mid for mid, _ in t["b4"]["patches"]])


def b4_arrival_order(t):
    """b4 0.12 gives patches the version of their cover letter only when
    the cover letter came first in the mbox; in the archive it came after"""
    return (t["lorebot"]["cover"] == t["b4"]["cover"] and
            t["lorebot"]["patches"] == [mid for mid, _ in t["b4"]["patches"]] and
            t["b4"]["version"] == 1 and t["cover_late"])


def b4_strict_thread(t):
    """b4 0.12 leaves out of the thread a patch whose In-Reply-To is not
    in the mbox, though its References name the thread (a long series
    sent in batches); lorebot places it by its nearest known reference"""
    b4ids = [mid for mid, _ in t["b4"]["patches"]]
    extra = [m for m in t["lorebot"]["patches"] if m not in b4ids]
    return (extra and all(m in t["orphans"] for m in extra) and
            [m for m in t["lorebot"]["patches"] if m in b4ids] == b4ids)


def b4_versioned(subject):
    """does b4 0.12 read a version in the subject: a "vN" word in its
    leading [...] groups ("[PATCH v4.1 9/9]" has none for it)"""
    subject = re.sub(r"(?i)^\s*((re|aw|fwd?):\s*)+", "", subject or "")
    while subject.startswith("["):
        mo = re.match(r"\[([^\]]*)\]\s*", subject)
        if not mo:
            break
        group = re.sub(r"(?i)(patch)(v\d+)", r"\1 \2", mo.group(1))
        if any(re.match(r"(?i)^v\d+$", w.strip(",;")) for w in group.split()):
            return True
        subject = subject[mo.end():]
    return False


def b4_v1_taken(t):
    """b4 0.12 gives a patch without a version the version of the cover
    letter or patch 1 it replies to only while it has read no patch of v1
    in the thread: after a patch whose version it cannot read ("[PATCH
    v4.1 9/9]", v1 for it), a "[PATCH 10/9]" in reply to the v4 cover
    letter stays v1; lorebot counts it in v4"""
    b4ids = [mid for mid, _ in t["b4"]["patches"]]
    ours = t["lorebot"]["patches"]
    extra = [m for m in ours if m not in b4ids]
    v1 = [m for m in t["v1_patches"] if m not in ours and m not in b4ids]
    return bool(extra and v1 and [m for m in ours if m in b4ids] == b4ids and
                all(m in t["order"] and not b4_versioned(t["subjects"].get(m)) and
                    any(t["order"][v] < t["order"][m] for v in v1) for m in extra))


# Thread-level differences that are lorebot's design (doc/technical/series.md):
# name -> (what, test(thread result) -> bool)
DESIGN = {
    "b4-mixes-sends": ("b4 reads two sends of one version in a thread as one series",
                       b4_mixes_sends),
    "later-copy": ("a patch posted twice in its send: lorebot takes the later copy, b4 the first",
                   later_copy),
    "cover-without-diffstat": ("a version given only on a cover letter without diffstat: "
                               "b4 reads v1 without the cover letter", cover_without_diffstat),
    "b4-renumbers": ("b4 numbers versions itself on a second patch without one",
                     b4_renumbers),
    "b4-arrival-order": ("b4 reads the cover letter's version only when it came first",
                         b4_arrival_order),
    "b4-strict-thread": ("b4 leaves out a patch whose In-Reply-To is not in the mbox",
                         b4_strict_thread),
    "b4-v1-taken": ("b4 gives a patch without a version its cover letter's only while "
                    "it has read no v1 patch", b4_v1_taken),
}

KNOWN = re.compile(r"(?i)^([a-z-]+-by|fixes|link|closes|cc|message-id):")


def quoted_diff(body):
    """a '--- file'/'+++ file' pair before the '---' line: git (and
    lorebot) end the commit message there, b4 0.12 at '---'"""
    head = re.split(r"(?m)^---\s*$", body, 1)[0]
    return bool(re.search(r"(?m)^--- \S.*\n\+\+\+ \S", head))


def title_of(subject):
    return re.sub(r"^(\s*\[[^\]]*\]\s*)+", "", subject or "").strip().lower()


def carried_other_sender(x, mid, th):
    """trailers b4 carries from another sender's patch of the same title
    (an earlier version of the same diff, b4's trailer_map): lorebot
    carries them only between patches of one sender"""
    text, irt, subj, sender = th
    if x["only_lorebot"] or not x["only_b4"] or mid not in subj:
        return False
    others = set(m for m in subj if m != mid and not REPLY.match(subj[m]) and
                 sender.get(m) != sender.get(mid) and
                 title_of(subj[m]) == title_of(subj[mid]))
    given = set(line.strip() for m in irt if irt[m] in others
                for line in text.get(m, "").splitlines())
    return bool(others) and all(t in given for t in x["only_b4"])


def trailer_design(x, body, mid=None, th=None):
    """why a patch's trailers differ, when it is lorebot's design"""
    if body is not None and quoted_diff(body) and not x["only_lorebot"]:
        return "message-quotes-diff"
    if not x["only_lorebot"] and x["only_b4"] and \
            all(not KNOWN.match(t) for t in x["only_b4"]):
        return "no-known-trailer"
    if th and carried_other_sender(x, mid, th):
        return "carried-other-sender"
    return None


def bodies(thread):
    """the text of every message of the thread, its place in the mbox,
    its In-Reply-To, its subject and its sender, by Message-ID"""
    out, order, irt, subj, sender = {}, {}, {}, {}, {}
    for raw in re.split(rb"(?m)^From mboxrd@z .*\n", open(thread, "rb").read()):
        if not raw.strip():
            continue
        raw = re.sub(rb"(?m)^>(>*From )", rb"\1", raw)
        m = email.message_from_bytes(raw, policy=email.policy.compat32)
        mid = (ids(m.get("Message-ID")) or [None])[0]
        text = ""
        for part in m.walk():
            if part.get_content_type() == "text/plain":
                text += (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
        out[mid] = text
        order[mid] = len(order)
        irt[mid] = (ids(m.get("In-Reply-To")) or [None])[0]
        subj[mid] = " ".join(decoded(m.get("Subject")).split())
        sender[mid] = email.utils.parseaddr(decoded(m.get("From")))[1].lower()
    return out, order, irt, subj, sender


def b4_cached(out, name, thread, root):
    """b4's reading of a thread, its output kept in OUT/b4/K (b4 is the slow side)"""
    where = os.path.join(out, "b4", name)
    done = os.path.join(where, "t.json")
    if not os.path.exists(done) or os.path.getmtime(done) < os.path.getmtime(thread):
        shutil.rmtree(where, ignore_errors=True)
        os.makedirs(where)
        run_b4(thread, root, where)
    return read_b4(where)


def one_thread(out, name, root):
    thread = os.path.join(out, "threads", name + ".mbox")
    b = b4_cached(out, name, thread, root)
    ours = run_lorebot(thread)
    r = {"thread": name, "root": root, "b4": {k: v for k, v in b.items() if k != "err"},
         "b4err": b["err"], "checks": {}}
    b4ids = [mid for mid, _ in b["patches"]]
    s = pick(ours.get("series", []), b4ids)
    if not b4ids and s is None:
        r["checks"] = {"version": True, "patches": True, "complete": True, "cover": True}
        r["trailers"] = []
        return r
    ours_ids = [p["msgid"] for p in s["patches"]] if s else []
    r["lorebot"] = {"version": s and s["version"], "patches": ours_ids,
                    "complete": s and s["complete"], "cover": s and s["cover"],
                    "id": s and s["id"]}
    # the send of each patch lorebot assembled, and the copies it replaced
    r["send_of"] = {p["msgid"]: v["id"] for v in ours.get("series", []) for p in v["patches"]}
    r["send_of"].update({v["cover"]: v["id"] for v in ours.get("series", []) if v["cover"]})
    r["has_cover"] = {v["id"]: bool(v["cover"]) for v in ours.get("series", [])}
    r["problems"] = ours.get("problems", [])
    text, order, irt, subj, sender = bodies(thread)
    # for b4_v1_taken(): lorebot's patches b4 leaves out, and the patches
    # b4 reads as v1 (not replies, a diff, no version it can read)
    extra = [m for m in ours_ids if m not in b4ids]
    r["v1_patches"] = [m for m in order if extra and not REPLY.match(subj[m]) and
                       HUNK.search(text.get(m, "")) and not b4_versioned(subj[m])]
    r["order"] = {m: order[m] for m in extra + r["v1_patches"] if m in order}
    r["subjects"] = {m: subj.get(m) for m in extra}
    r["cover_diffstat"] = bool(s and s["cover"] and DIFFSTAT.search(text.get(s["cover"], "")))
    r["cover_late"] = bool(s and s["cover"] and s["patches"] and
                           order.get(s["cover"], 0) > min(order.get(p["msgid"], 0)
                                                          for p in s["patches"]))
    r["orphans"] = [m for m in ours_ids if irt.get(m) and irt[m] not in order]
    r["checks"]["version"] = (s and s["version"]) == b["version"]
    r["checks"]["patches"] = ours_ids == b4ids
    r["checks"]["complete"] = bool(s) and bool(s["complete"]) == b["complete"]
    r["checks"]["cover"] = (s["cover"] if s else None) == b["cover"]
    r["trailers"] = []
    if s:
        for (mid, tb), p in zip(b["patches"], s["patches"]):
            if mid != p["msgid"]:
                continue
            theirs = sorted(tb)
            mine = sorted("%s: %s" % (t["name"], t["value"]) for t in p["trailers"])
            x = {"n": p["n"], "msgid": mid, "same": theirs == mine,
                 "only_b4": [t for t in theirs if t not in mine],
                 "only_lorebot": [t for t in mine if t not in theirs]}
            x["design"] = None if x["same"] else \
                trailer_design(x, text.get(mid), mid, (text, irt, subj, sender))
            r["trailers"].append(x)
    return r


def compare_threads(out, res, jobs, pick=None):
    rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "threads.tsv"))
            if not l.startswith("#")]
    if pick:
        rows = [r for r in rows if r[0] in pick]
    done = [0]

    def one(r):
        t = one_thread(out, r[0], r[1])
        done[0] += 1
        if sys.stderr.isatty() or done[0] % 25 == 0:
            print("%d/%d threads" % (done[0], len(rows)), file=sys.stderr)
        return t
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        res["threads"] = list(ex.map(one, rows))


def classify_thread(t):
    for name, (_, test) in DESIGN.items():
        if test(t):
            return name
    return None


def brief(who, r, patches):
    """one side of a thread difference, in a line"""
    return "%s v%s, %d patches (%s), %s, cover %s" % (
        who, r.get("version"), len(patches),
        " ".join(p.split("@")[0][-12:] for p in patches[:6]) + (" ..." if len(patches) > 6 else ""),
        "complete" if r.get("complete") else "incomplete", r.get("cover"))


def report(res, listing):
    bad = 0
    m = res.get("mails")
    if m:
        n = m["compared"]
        print("## Patch mails against git mailinfo: %d compared (%d refused by git)" %
              (n, m["git_refused"]))
        print("| field | the same | differ: documented classes | undocumented |")
        print("| --- | --- | --- | --- |")
        for f in FIELDS:
            cl = m["classes"].get(f, {})
            doc = ", ".join("%s %d" % kv for kv in sorted(cl.items()) if kv[0] != "UNDOCUMENTED")
            print("| %s | %d (%.2f%%) | %s | %d |" % (f, n - m["differ"][f],
                  100.0 * (n - m["differ"][f]) / max(n, 1), doc or "-",
                  cl.get("UNDOCUMENTED", 0)))
        print("mails where git finds a patch and lorebot none: %d" % len(m["git_patch_lorebot_none"]))
        bad += len(m["undocumented"]) + len(m["git_patch_lorebot_none"])
        if listing:
            for i, f in m["undocumented"][:50]:
                print("  UNDOCUMENTED mail %d %s" % (i, f))
    ts = res.get("threads")
    if ts:
        print("\n## Threads against b4 am -t: %d threads (for b4: %d with a header "
              "unfolded, %d with a date's zone fixed)" %
              (len(ts), sum(1 for t in ts if t["b4"]["unfolded"]),
               sum(1 for t in ts if t["b4"]["zones"])))
        design = {}
        for t in ts:
            t["design"] = None
            if not all(t["checks"].values()):
                t["design"] = classify_thread(t)
                if t["design"]:
                    design[t["design"]] = design.get(t["design"], 0) + 1
        counted = [t for t in ts if not t["design"]]
        print("| check | agree | of | % |")
        print("| --- | --- | --- | --- |")
        for c in ("version", "patches", "complete", "cover"):
            ok = sum(1 for t in counted if t["checks"][c])
            print("| %s | %d | %d | %.1f%% |" % (c, ok, len(counted), 100.0 * ok / max(len(counted), 1)))
        tr = [x for t in ts if not t["design"] for x in t["trailers"]]
        tdesign = {}
        for x in tr:
            if x.get("design"):
                tdesign[x["design"]] = tdesign.get(x["design"], 0) + 1
        tr = [x for x in tr if not x.get("design")]
        ok = sum(1 for x in tr if x["same"])
        print("| trailers per patch | %d | %d | %.1f%% |" % (ok, len(tr), 100.0 * ok / max(len(tr), 1)))
        print("design differences left out: threads: %s; patches' trailers: %s" %
              (", ".join("%s %d" % kv for kv in sorted(design.items())) or "none",
               ", ".join("%s %d" % kv for kv in sorted(tdesign.items())) or "none"))
        res["summary"] = {"threads": len(ts), "counted": len(counted), "design": design,
                          "trailer_design": tdesign, "trailers": len(tr), "trailers_same": ok,
                          "b4_unfolded": sum(1 for t in ts if t["b4"]["unfolded"]),
                          "b4_zones": sum(1 for t in ts if t["b4"]["zones"]),
                          "agree": {c: sum(1 for t in counted if t["checks"][c])
                                    for c in ("version", "patches", "complete", "cover")}}
        for t in ts:
            if not all(t["checks"].values()) and not t["design"]:
                bad += 1
                if listing:
                    print("  %s %s <%s> %s: %s / %s" % (
                        "B4 FAILED" if "Traceback" in t["b4err"] else "DIFF",
                        t["thread"], t["root"],
                        ",".join(c for c, v in t["checks"].items() if not v),
                        brief("b4", t["b4"], [m for m, _ in t["b4"]["patches"]]),
                        brief("lorebot", t.get("lorebot") or {},
                              (t.get("lorebot") or {}).get("patches") or [])))
            for x in t["trailers"]:
                if not x["same"] and not x.get("design") and not t["design"]:
                    bad += 1
                    if listing:
                        print("  TRAILERS %s <%s> only b4 %s only lorebot %s" % (
                            t["thread"], x["msgid"], x["only_b4"], x["only_lorebot"]))
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("mirror")
    b.add_argument("out")
    b.add_argument("--since", default="2025-01-01")
    b.add_argument("--until", default="2026-04-01")
    b.add_argument("--threads", type=int, default=300)
    m = sub.add_parser("sample")
    m.add_argument("out")
    m.add_argument("files", nargs="+")
    c = sub.add_parser("compare")
    c.add_argument("out")
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--json")
    c.add_argument("--list", action="store_true")
    c.add_argument("--only", choices=["mails", "threads"])
    c.add_argument("--pick", help="only these threads (K,K,...)")
    args = ap.parse_args()
    if args.cmd == "build":
        y, rest = int(args.until[:4]), args.until[4:]
        args.until_margin = "%d%s" % (y + 1, rest)
        build(args)
        return 0
    if args.cmd == "sample":
        sample(args)
        return 0
    res = {}
    if args.only != "threads":
        compare_mails(args.out, res)
    if args.only != "mails":
        compare_threads(args.out, res, args.jobs,
                        args.pick.split(",") if args.pick else None)
    rc = report(res, args.list)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return rc


if __name__ == "__main__":
    sys.exit(main())

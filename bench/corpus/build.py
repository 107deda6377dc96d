#!/usr/bin/env python3
"""Build lorebot's corpus of real mm patches from public-inbox archives.

The corpus (bench/corpus/*.mbox.gz, listed in manifest.tsv) is patch mails
as the lists carried them, taken from the git mirrors of lore's archives
at https://github.com/linux-mailinglist-archives:

    cgroups.vger.kernel.org.0   kasan-dev.googlegroups.com.0
    linux-arch.vger.kernel.org.0   nvdimm.lists.linux.dev.0

(linux-mm itself is larger than can be fetched here; these lists carry
the memcg, slab, KASAN, page-table and DAX patches of mm).  A patch is an
mm patch when it touches C code under mm/ or an mm header of
include/linux/.  Of each patch only its latest version is kept.

  merged   2022-01..2024-11, in Linux 6.12: at least 85% of the lines it
           adds (10 characters or more, not comments) are in the 6.12
           file it touches, and at least half of those it removes are
           gone.  Judged against a checkout of linux-source-6.12.
  recent   2025-2026, posted (merged or not): every 4th by date.
  reviewed the patches of reviewed.tsv kept in these archives: a problem
           in a rule's scope that a reviewer named (reviewed.tsv also lists
           those of the fixture threads and of the 6.12 tree).

usage:
  build.py select MIRRORS_DIR LINUX_6_12_DIR   writes manifest.tsv
  build.py extract MIRRORS_DIR                 writes the *.mbox.gz from it

MIRRORS_DIR holds one bare clone per archive, named as above (the fetch
of 'github:linux-mailinglist-archives/<name>' puts them in
<dir>/linux-mailinglist-archives+<name>/repo; both layouts are found).
Only headers a reader needs are kept (From, To, Cc, Subject, Date,
Message-ID, In-Reply-To, References, MIME and transfer encoding); the
body is kept as sent, quoted-printable included.
"""
import email
import email.policy
import email.utils
import gzip
import os
import re
import subprocess
import sys

ARCHIVES = [
    "cgroups.vger.kernel.org.0",
    "kasan-dev.googlegroups.com.0",
    "linux-arch.vger.kernel.org.0",
    "nvdimm.lists.linux.dev.0",
]
HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.tsv")
KEEP = ("from", "to", "cc", "subject", "date", "message-id", "in-reply-to",
        "references", "mime-version", "content-type",
        "content-transfer-encoding")
MM_HEADER = re.compile(
    r"include/linux/(mm|memcontrol|swap|huge_mm|rmap|pagemap|page|folio|"
    r"vmstat|mmzone|hugetlb|shmem|ksm|khugepaged|memory|slab|gfp|"
    r"userfaultfd|pgtable|migrate|mempolicy|vmalloc|zswap|pagewalk|memcg|"
    r"list_lru)")


def repo_of(mirrors, name):
    for p in (os.path.join(mirrors, "linux-mailinglist-archives+" + name, "repo"),
              os.path.join(mirrors, name), os.path.join(mirrors, name + ".git")):
        if os.path.isdir(p):
            return p
    sys.exit("no mirror of %s in %s" % (name, mirrors))


def messages(repo, since=None, until=None, oldest_first=False):
    """(commit, raw bytes) of every message, newest first"""
    cmd = ["git", "-C", repo, "log", "--format=%H"]
    if since:
        cmd.append("--since=" + since)
    if until:
        cmd.append("--until=" + until)
    if oldest_first:
        cmd.append("--reverse")
    log = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    cat = subprocess.Popen(["git", "-C", repo, "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for c in log:
        cat.stdin.write(("%s:m\n" % c).encode())
        cat.stdin.flush()
        head = cat.stdout.readline().split()
        if len(head) < 3 or head[1] != b"blob":
            continue
        data = cat.stdout.read(int(head[2]))
        cat.stdout.read(1)
        yield c, data
    cat.stdin.close()
    cat.wait()


def body_of(msg):
    if msg.is_multipart():
        return None
    try:
        b = msg.get_payload(decode=True)
    except Exception:
        return None
    return b.decode("utf-8", "replace") if b else None


def subject_of(msg):
    return " ".join(str(msg.get("Subject", "")).split())


def norm(subject):
    s = re.sub(r"^(\[[^\]]*\]\s*)+", "", subject)
    return " ".join(s.lower().split())


def version(subject):
    m = re.search(r"\[[^\]]*\bv(\d+)\b[^\]]*\]", subject, re.I)
    return int(m.group(1)) if m else 1


def is_mm(path):
    return path.endswith((".c", ".h")) and (path.startswith("mm/") or MM_HEADER.match(path))


def in_6_12(body, linux):
    """(added, found, removed, gone): distinctive lines against 6.12"""
    cache = {}
    add = found = rem = gone = 0
    cur = None
    for l in body.split("\n"):
        m = re.match(r"^\+\+\+ b/(\S+)", l)
        if m:
            cur = m.group(1) if m.group(1).endswith((".c", ".h")) else None
            continue
        if l.startswith("--- ") or cur is None:
            continue
        s = l[1:].strip()
        if len(s) < 10 or s.startswith(("/*", "*", "//")):
            continue
        if cur not in cache:
            try:
                with open(os.path.join(linux, cur), errors="replace") as f:
                    cache[cur] = set(x.strip() for x in f)
            except OSError:
                cache[cur] = set()
        if l.startswith("+"):
            add += 1
            found += s in cache[cur]
        elif l.startswith("-"):
            rem += 1
            gone += s not in cache[cur]
    return add, found, rem, gone


def select(mirrors, linux):
    merged, recent, seen = {}, {}, set()
    for name in ARCHIVES:
        for commit, data in messages(repo_of(mirrors, name), "2021-12-01"):
            msg = email.message_from_bytes(data, policy=email.policy.compat32)
            subj = subject_of(msg)
            if re.match(r"(?i)^(re|aw|fwd?):", subj) or not re.search(r"(?i)\[[^\]]*patch", subj):
                continue
            msgid = str(msg.get("Message-ID", "")).strip()
            body = body_of(msg)
            if not body or msgid in seen:
                continue
            files = re.findall(r"^diff --git a/(\S+) b/", body, re.M)
            if not any(is_mm(f) for f in files):
                continue
            try:
                date = email.utils.parsedate_to_datetime(msg.get("Date"))
            except Exception:
                continue
            seen.add(msgid)
            day = date.strftime("%Y-%m-%d")
            row = (date.timestamp(), day, name, commit, msgid, subj)
            key = norm(subj)
            if "2022-01-01" <= day <= "2024-11-15":
                a, f, r, g = in_6_12(body, linux)
                if a < 3 or f < 0.85 * a or (r >= 3 and g < 0.5 * r):
                    continue
                table = merged
            elif day >= "2025-01-01":
                table = recent
            else:
                continue
            old = table.get(key)
            if not old or (version(subj), row[0]) > (version(old[5]), old[0]):
                table[key] = row
    rows = [("merged",) + r for r in sorted(merged.values())]
    rows += [("recent",) + r for i, r in enumerate(sorted(recent.values())) if i % 4 == 0]
    with open(MANIFEST, "w") as f:
        f.write("# set\tdate\tarchive\tcommit\tmessage-id\tsubject\n")
        for s, _, day, name, commit, msgid, subj in rows:
            f.write("\t".join((s, day, name, commit, msgid, subj)) + "\n")
    print("%d merged, %d recent" % (len(merged), sum(1 for r in rows if r[0] == "recent")))


def strip(data):
    head, sep, body = data.partition(b"\n\n")
    out, keep = [], False
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t"):
            if keep:
                out.append(line)
            continue
        keep = line.split(b":", 1)[0].strip().lower().decode("ascii", "replace") in KEEP
        if keep:
            out.append(line)
    return b"\n".join(out) + b"\n\n" + body


def extract(mirrors):
    rows = []
    with open(MANIFEST) as f:
        for line in f:
            if not line.startswith("#"):
                rows.append(line.rstrip("\n").split("\t"))
    blobs = {}
    for name in sorted(set(r[2] for r in rows)):
        cat = subprocess.Popen(["git", "-C", repo_of(mirrors, name), "cat-file", "--batch"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for r in rows:
            if r[2] != name:
                continue
            cat.stdin.write(("%s:m\n" % r[3]).encode())
            cat.stdin.flush()
            head = cat.stdout.readline().split()
            data = cat.stdout.read(int(head[2]))
            cat.stdout.read(1)
            blobs[r[3]] = data
        cat.stdin.close()
        cat.wait()
    out = {}
    for s, day, name, commit, msgid, subj in rows:
        data = strip(blobs[commit].replace(b"\r\n", b"\n"))
        head, sep, body = data.partition(b"\n\n")
        # mboxrd: quote the From lines of the body
        body = re.sub(rb"(?m)^(>*From )", rb">\1", body)
        out.setdefault(s, []).append(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" +
                                     head + b"\n\n" + body.rstrip(b"\n") + b"\n\n")
    # the reviewed problems kept in the archives (reviewed.tsv)
    for line in open(os.path.join(HERE, "reviewed.tsv")):
        src = line.split("\t", 1)[0]
        if line.startswith("#") or ":" not in src or src.split(":")[0] not in ARCHIVES:
            continue
        name, commit = src.split(":")
        data = subprocess.run(["git", "-C", repo_of(mirrors, name), "show",
                               commit + ":m"], capture_output=True, check=True).stdout
        data = strip(data.replace(b"\r\n", b"\n"))
        head, sep, body = data.partition(b"\n\n")
        body = re.sub(rb"(?m)^(>*From )", rb">\1", body)
        mail = (b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + head + b"\n\n" +
                body.rstrip(b"\n") + b"\n\n")
        if mail not in out.setdefault("reviewed", []):
            out["reviewed"].append(mail)
    for s, mails in out.items():
        with gzip.GzipFile(os.path.join(HERE, s + ".mbox.gz"), "wb", mtime=0) as f:
            f.write(b"".join(mails))
        print("%s: %d mails" % (s, len(mails)))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "select":
        select(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "extract":
        extract(sys.argv[2])
    else:
        sys.exit(__doc__)

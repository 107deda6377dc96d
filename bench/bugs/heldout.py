#!/usr/bin/env python3
"""Build the held-out set of bench/bugs/ (issue 40) from public-inbox
archives: the bug mails named in heldout.tsv and the posted mm patches
(heldout-posted.mbox.gz) of the window, 2026-03-07..2026-07-15.

usage:
  heldout.py mail MIRRORS_DIR ARCHIVE MESSAGE-ID OUT [SOURCE]
      one message, headers trimmed, X-Lorebot-Source: SOURCE
  heldout.py posted MIRRORS_DIR OUT.mbox.gz
      every mm patch (C code under mm/ or an mm header) posted in the
      window to the archives below, latest version of each subject,
      none of bench/corpus/manifest.tsv

MIRRORS_DIR holds the fetches of github:linux-mailinglist-archives/<name>
(<dir>/linux-mailinglist-archives+<name>/repo).  The archives read whole
for the window are those that reach past 2026-03-06 (the end of the
newer half): cgroups, linux-s390, nvdimm, linux-api (to 2026-07-15),
linuxppc-dev (to 2026-03-10).  linux-mm and linux-kernel have no
snapshot that can be fetched here (both over 500 MB).
"""
import email
import email.policy
import email.utils
import gzip
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
WINDOW = ("2026-03-07", "2026-07-15")
ARCHIVES = ["cgroups.vger.kernel.org.0", "linux-s390.vger.kernel.org.0",
            "nvdimm.lists.linux.dev.0", "linux-api.vger.kernel.org.0",
            "linuxppc-dev.lists.ozlabs.org.0"]
KEEP = ("from", "to", "cc", "subject", "date", "message-id", "in-reply-to",
        "references", "mime-version", "content-type",
        "content-transfer-encoding")
MM = re.compile(
    r"^(mm/.*|include/linux/(mm|memcontrol|swap|huge_mm|rmap|pagemap|page|"
    r"folio|vmstat|mmzone|hugetlb|shmem|ksm|khugepaged|memory|slab|gfp|"
    r"userfaultfd|pgtable|migrate|mempolicy|vmalloc|zswap|pagewalk|memcg|"
    r"list_lru)\w*)\.[ch]$")


def mails(mirrors, archive, since):
    git = os.path.join(mirrors, "linux-mailinglist-archives+" + archive, "repo")
    revs = subprocess.run(["git", "--git-dir", git, "log", "--format=%H",
                           "--since", since], capture_output=True,
                          text=True, check=True).stdout.split()
    p = subprocess.Popen(["git", "--git-dir", git, "cat-file", "--batch"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for h in revs:
        p.stdin.write(("%s:m\n" % h).encode())
        p.stdin.flush()
        hd = p.stdout.readline().split()
        if len(hd) < 3:
            continue
        raw = p.stdout.read(int(hd[2]))
        p.stdout.read(1)
        yield h, raw
    p.stdin.close()
    p.wait()


def trimmed(raw, source):
    m = email.message_from_bytes(raw, policy=email.policy.compat32)
    head, _, body = raw.partition(b"\n\n")
    out = []
    for k in KEEP:
        v = m.get(k)
        if v is not None:
            out.append("%s: %s" % (k.title().replace("Id", "ID")
                                   if k == "message-id" else k.title(), v))
    if source:
        out.append("X-Lorebot-Source: " + source)
    return ("\n".join(out) + "\n\n").encode() + body


def date(m):
    try:
        return email.utils.parsedate_to_datetime(m["Date"]).strftime("%Y-%m-%d")
    except (TypeError, ValueError):
        return ""


def cmd_mail(mirrors, archive, msgid, out, source=""):
    for h, raw in mails(mirrors, archive, "2024-01-01"):
        m = re.search(rb"^Message-I[dD]:\s*(<[^>]+>)", raw, re.M)
        if m and m.group(1).decode() == msgid:
            with open(out, "wb") as f:
                f.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n")
                f.write(trimmed(raw, source or "linux-mailinglist-archives/%s "
                                "(commit %s)" % (archive, h)))
            return
    sys.exit("no %s in %s" % (msgid, archive))


def cmd_posted(mirrors, out):
    seen = set()
    for line in open(os.path.join(TOP, "bench", "corpus", "manifest.tsv")):
        if not line.startswith("#"):
            seen.add(line.split("\t")[4])
    best = {}
    for archive in ARCHIVES:
        for h, raw in mails(mirrors, archive, "2026-02-01"):
            m = email.message_from_bytes(raw, policy=email.policy.compat32)
            d = date(m)
            if not WINDOW[0] <= d <= WINDOW[1]:
                continue
            subj = " ".join(str(m["Subject"] or "").split())
            if subj.lower().startswith(("re:", "aw:", "fwd:")):
                continue
            body = raw.decode("utf-8", "replace")
            files = set(re.findall(r"^diff --git a/(\S+)", body, re.M))
            if not any(MM.match(f) for f in files):
                continue
            msgid = str(m["Message-ID"]).strip()
            if msgid in seen:
                continue
            key = re.sub(r"^(\[[^\]]*\]\s*)+", "", subj).strip().lower()
            if key not in best or best[key][0] < d:
                best[key] = (d, msgid, trimmed(raw, "linux-mailinglist-archives/"
                                               "%s (commit %s)" % (archive, h)))
    with gzip.open(out, "wb") as f:
        for d, msgid, raw in sorted(best.values()):
            f.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n")
            # mboxrd: quote From lines of the body
            f.write(re.sub(rb"(?m)^(>*From )", rb">\1", raw).rstrip(b"\n") + b"\n\n")
    print("%d posted mm patches, %s..%s" % (len(best), *WINDOW), file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "mail":
        cmd_mail(*sys.argv[2:7])
    elif len(sys.argv) == 4 and sys.argv[1] == "posted":
        cmd_posted(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)

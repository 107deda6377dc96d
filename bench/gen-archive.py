#!/usr/bin/env python3
"""Generate a linux-mm-like archive of N messages and the news of one poll.

usage: gen-archive.py [--single] N ARCHIVE.mbox NEWS.mbox

The archive: series of 1-12 patches (a cover letter from 2 patches on),
1-4 versions each, later versions in threads of their own (some linked
with a lore link and a change-id, as b4 sends them), 0-6 replies per
version (reviews quoting the patch, trailers, replies to replies),
patches of 1-8 KB (2.7 KB a message on average).  Senders grow with the archive (N/60 of them, at
least 200) and are as unequal as on a real list (Zipf: a few send much
of the patches).  The news: the 10 messages a poll adds, a new 3-patch
series with its cover letter, v2 of an archived series (cover + 2
patches) and 3 reviews of archived patches.  Deterministic (seed 42).
--single: every message a one-patch series of its own without replies
(a version per message: the dashboard's index at 100,000 versions
without a 700,000-message archive).
"""
import bisect
import email.utils
import itertools
import random
import sys

import mailgen

single = sys.argv[1] == "--single"
if single:
    del sys.argv[1]
n_total = int(sys.argv[1])
rnd = random.Random(42)
n_people = max(200, n_total // 60)
people = [(f"Dev {i}", f"dev{i}@example{i % 97}.org") for i in range(n_people)]
weights = list(itertools.accumulate(1.0 / (r + 1) ** 1.1 for r in range(n_people)))
files = ["mm/rmap.c", "mm/vmscan.c", "mm/khugepaged.c", "mm/memory.c", "mm/gup.c",
         "mm/huge_memory.c", "include/linux/mm.h", "mm/page_alloc.c", "mm/slub.c",
         "mm/mmap.c", "mm/shmem.c", "mm/hugetlb.c", "mm/memcontrol.c"]
t0 = 1600000000


def person():
    return people[bisect.bisect(weights, rnd.random() * weights[-1])]


class Out:
    def __init__(self, path):
        self.f = open(path, "w")
        self.n = 0

    def emit(self, frm, subject, mid, t, body, irt=None, refs=()):
        self.f.write(mailgen.message(frm, person()[1], subject, mid,
                                     email.utils.formatdate(t), body, irt, refs))
        self.n += 1


def diff():
    return mailgen.diff(rnd, files, 12)


def send(out, author, title, version, n, t, stamp, change_id, link=None):
    """One version: cover letter (n > 1) and patches; their Message-IDs"""
    tag = f"PATCH v{version}" if version > 1 else "PATCH"
    cover = f"{stamp}-0-{author[1]}"
    if n > 1:
        changes = f"\nChanges in v{version}:\n- review comments\n" if version > 1 else ""
        links = f"\nv{version - 1}: https://lore.kernel.org/linux-mm/{link}/\n" if link else ""
        out.emit(author, f"[{tag} 0/{n}] {title}", cover, t,
                 "This series improves things.\n\n" + "Some words. " * 60 + changes + links +
                 f"\n\nchange-id: {change_id}\nbase-commit: {'%040x' % rnd.getrandbits(160)}"
                 "\n-- \n2.43.0")
    mids = []
    for i in range(1, n + 1):
        mid = f"{stamp}-{i}-{author[1]}"
        subj = f"[{tag} {i}/{n}] {title} part {i}" if n > 1 else f"[{tag}] {title}"
        body = (f"Change part {i}.\n\n" + "Explanation line. " * rnd.randint(10, 40) +
                f"\n\nSigned-off-by: {author[0]} <{author[1]}>\n---\n" +
                "".join(diff() for _ in range(rnd.randint(1, 3))) + "-- \n2.43.0")
        out.emit(author, subj, mid, t + i, body,
                 irt=cover if n > 1 else None, refs=[cover] if n > 1 else ())
        mids.append(mid)
    return cover if n > 1 else mids[0], mids, tag


def review(out, serial, r, tag, title, root, target, t):
    rev = person()
    tr = rnd.choice(["Reviewed-by", "Acked-by", "Tested-by", None])
    body = ("> " + "\n> ".join(f"+\tquoted_{k}(folio);" for k in range(rnd.randint(3, 60))) +
            "\n\n" + "A comment on this. " * rnd.randint(2, 20) +
            (f"\n\n{tr}: {rev[0]} <{rev[1]}>" if tr else ""))
    out.emit(rev, f"Re: [{tag}] {title}", f"r{serial}.{r}@{rev[1].split('@')[1]}",
             t, body, irt=target, refs=[root, target] if root != target else [root])


archive = Out(sys.argv[2])
serial = 0
kept = []      # (author, title, n, last version, change-id, root) of some series
patches = []   # (tag, title, root, msgid) of some archived patches
while archive.n < n_total:
    author = person()
    serial += 1
    title = f"mm: improve thing {serial}"
    n = 1 if single else rnd.choice([1, 1, 1, 2, 3, 4, 5, 8, 12])
    change_id = f"20240101-thing-{serial:012x}"
    root = None
    for version in range(1, 2 if single else rnd.choice([2, 2, 2, 3, 4, 5])):
        t = t0 + serial * 300 + version * 86400 * 7
        root, mids, tag = send(archive, author, title, version, n, t,
                               f"2024{serial:09d}.v{version}", change_id, root)
        for r in range(0 if single else rnd.choice([0, 0, 1, 2, 3, 4, 6])):
            target = rnd.choice(mids)
            review(archive, f"{serial}.{version}", r, tag, title, root, target, t + 3600 + r)
        if rnd.random() < 0.05:
            patches.append((tag, title, root, rnd.choice(mids)))
        if archive.n >= n_total:
            break
    if rnd.random() < 0.05:
        kept.append((author, title, n, version, change_id, root))
archive.f.close()

news = Out(sys.argv[3])
t = t0 + (serial + 10) * 300 + 86400 * 40
author = person()
send(news, author, "mm: a new series of the poll", 1, 3, t, "2099000000.1", "20990101-new")
old = [k for k in kept if k[2] >= 2 or single][-1]
send(news, old[0], old[1], old[3] + 1, 2, t + 60, "2099000000.2", old[4], old[5])
for r, p in enumerate(patches[-3:]):
    review(news, "news", r, p[0], p[1], p[2], p[3], t + 120 + r)
news.f.close()
print(f"{archive.n} messages in {sys.argv[2]}, {news.n} in {sys.argv[3]}", file=sys.stderr)

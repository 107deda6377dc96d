#!/usr/bin/env python3
"""Generate a synthetic linux-mm-like mbox (mboxrd) of N messages.

Series of 1-12 patches (most with a cover letter), several versions,
replies with review trailers, realistic patch sizes.  Deterministic.
usage: gen-mbox.py N OUT
"""
import random
import sys

import mailgen

n_total = int(sys.argv[1])
out = open(sys.argv[2], "w")
rnd = random.Random(42)
people = [(f"Dev {i}", f"dev{i}@example{i % 7}.org") for i in range(200)]
files = ["mm/rmap.c", "mm/vmscan.c", "mm/khugepaged.c", "mm/memory.c",
         "mm/huge_memory.c", "include/linux/mm.h", "mm/page_alloc.c"]
written = 0
t0 = 1700000000


def date(t):
    import email.utils
    return email.utils.formatdate(t, localtime=False)


def emit(frm, subject, mid, t, body, irt=None, refs=()):
    global written
    out.write(mailgen.message(frm, rnd.choice(people)[1], subject, mid, date(t), body,
                              irt, refs))
    written += 1


def diff():
    return mailgen.diff(rnd, files, 8)


serial = 0
while written < n_total:
    author = rnd.choice(people)
    title = f"mm: improve thing {serial}"
    n = rnd.choice([1, 1, 2, 3, 4, 5, 8, 12])
    for version in range(1, rnd.choice([2, 2, 3, 4])):
        serial += 1
        t = t0 + serial * 600
        stamp = f"2024{serial:010d}.{serial % 99999}"
        tag = f"PATCH v{version}" if version > 1 else "PATCH"
        cover = f"{stamp}-1-{author[1]}"
        if n > 1:
            emit(author, f"[{tag} 0/{n}] {title}", cover, t,
                 "This series improves things.\n\n" + "Some words. " * 40 +
                 f"\n\nbase-commit: {'%040x' % rnd.getrandbits(160)}\n-- \n2.43.0")
        mids = []
        for i in range(1, n + 1):
            mid = f"{stamp}-{i + 1}-{author[1]}"
            subj = f"[{tag} {i}/{n}] {title} part {i}" if n > 1 else f"[{tag}] {title}"
            body = (f"Change part {i}.\n\n" + "Explanation line. " * 20 +
                    f"\n\nSigned-off-by: {author[0]} <{author[1]}>\n---\n" +
                    "".join(diff() for _ in range(rnd.randint(1, 3))) + "-- \n2.43.0")
            emit(author, subj, mid, t + i, body,
                 irt=cover if n > 1 else None, refs=[cover] if n > 1 else ())
            mids.append(mid)
        for r in range(rnd.randint(0, 4)):
            rev = rnd.choice(people)
            target = rnd.choice(mids)
            tr = rnd.choice(["Reviewed-by", "Acked-by", "Tested-by"])
            emit(rev, f"Re: [{tag}] {title}", f"r{serial}.{r}@{rev[1].split('@')[1]}",
                 t + 3600 + r, "> quoted line\n> another\n\nLooks good.\n\n" +
                 f"{tr}: {rev[0]} <{rev[1]}>", irt=target, refs=[cover, target])
        if written >= n_total:
            break
out.close()

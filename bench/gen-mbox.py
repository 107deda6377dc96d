#!/usr/bin/env python3
"""Generate a deterministic linux-mm-like mboxrd of N messages.

    gen-mbox.py N [START_EPOCH] > out.mbox

Series of 1-8 patches (a cover letter when there are two or more), each
patch a small diff to an mm/ file, and replies (some with Reviewed-by or
Acked-by) threaded to covers and patches.  Messages are one minute apart
from START_EPOCH (default 2026-01-05 00:00 UTC), in date order, as
git send-email and lore would have them.
"""
import random
import sys
import time

N = int(sys.argv[1])
T0 = int(sys.argv[2]) if len(sys.argv) > 2 else 1767571200
rnd = random.Random(4242)
FILES = ["mm/page_alloc.c", "mm/vmscan.c", "mm/slub.c", "mm/memory.c",
         "mm/huge_memory.c", "mm/khugepaged.c", "mm/rmap.c", "mm/mmap.c"]
WORDS = ("folio page reclaim batch lazyfree unmap split zone node lru "
         "counter helper walk table entry range flush tlb pte pmd").split()
PEOPLE = [("Alice Dev", "alice@example.org"), ("Bob Hacker", "bob@example.net"),
          ("Carol Kern", "carol@example.com"), ("Dave Reviewer", "dave@example.org"),
          ("Erin Mm", "erin@example.org"), ("Frank Slab", "frank@example.net")]
out = sys.stdout
n = 0


def date(i):
    return time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(T0 + 60 * i))


def words(k):
    return " ".join(rnd.choice(WORDS) for _ in range(k))


def emit(frm, subject, mid, parent, refs, body):
    global n
    h = [f"From: {frm[0]} <{frm[1]}>", "To: linux-mm@kvack.org",
         "Cc: Andrew Morton <akpm@linux-foundation.org>",
         f"Subject: {subject}", f"Date: {date(n)}", f"Message-ID: <{mid}>"]
    if parent:
        h.append(f"In-Reply-To: <{parent}>")
        h.append("References: " + " ".join(f"<{r}>" for r in refs))
    h += ["List-Id: <linux-mm.kvack.org>", "MIME-Version: 1.0",
          "Content-Type: text/plain; charset=UTF-8",
          "Content-Transfer-Encoding: 8bit"]
    lines = body.split("\n")
    lines = [(">" + ln) if ln.lstrip(">").startswith("From ") else ln for ln in lines]
    out.write("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + "\n".join(h) +
              "\n\n" + "\n".join(lines) + "\n\n")
    n += 1


def patch_body(author, f):
    hunk = "\n".join(f"+\t/* {words(6)} */" for _ in range(rnd.randint(2, 12)))
    k = hunk.count("\n") + 1
    return (f"{words(12).capitalize()}.\n{words(10)}.\n\n"
            f"Signed-off-by: {author[0]} <{author[1]}>\n---\n"
            f" {f} | {k} +\n 1 file changed, {k} insertions(+)\n\n"
            f"diff --git a/{f} b/{f}\nindex 1111111..2222222 100644\n"
            f"--- a/{f}\n+++ b/{f}\n@@ -10,3 +10,{3 + k} @@ int f(void)\n"
            f" \tint a;\n{hunk}\n \treturn 0;\n }}\n-- \n2.39.5\n")


s = 0
while n < N:
    s += 1
    author = rnd.choice(PEOPLE[:3] + PEOPLE[4:])
    total = rnd.choice([1, 1, 2, 3, 4, 5, 8])
    ver = rnd.choice([1, 1, 2, 3])
    vtag = f" v{ver}" if ver > 1 else ""
    title = f"mm: {words(5)}"
    stamp = f"bench{s}"
    msgs = []
    if total > 1 and n < N:
        cover = f"{stamp}-1-{author[1]}"
        emit(author, f"[PATCH{vtag} 0/{total}] {title}", cover, None, [],
             f"{words(20)}.\n\n{words(15)}.\n\nbase-commit: "
             f"67410da53b7c6bed63fa5f2d6d9fa774aa835799\n")
        msgs.append(cover)
    for p in range(1, total + 1):
        if n >= N:
            break
        mid = f"{stamp}-{p + 1}-{author[1]}"
        parent = msgs[0] if msgs else None
        subj = f"[PATCH{vtag} {p}/{total}] mm: {words(4)}" if total > 1 \
            else f"[PATCH{vtag}] {title}"
        emit(author, subj, mid, parent, [parent] if parent else [],
             patch_body(author, rnd.choice(FILES)))
        msgs.append(mid)
    for r in range(rnd.randint(0, 3)):
        if n >= N or not msgs:
            break
        target = rnd.choice(msgs)
        rev = rnd.choice([PEOPLE[3], PEOPLE[1], PEOPLE[5]])
        tag = rnd.choice(["", "Reviewed-by", "Acked-by"])
        body = f"On {date(n - 1)}, {author[0]} wrote:\n> {words(8)}\n\n{words(10)}.\n"
        if tag:
            body += f"\n{tag}: {rev[0]} <{rev[1]}>\n"
        emit(rev, f"Re: [PATCH{vtag}] {title}", f"{stamp}.r{r}.{rev[1]}",
             target, [msgs[0], target] if target != msgs[0] else [target], body)

#!/usr/bin/env python3
"""An mbox of reply chains whose parents arrive later (issue 20).

A series (cover letter and two patches), then N replies in chains of
LEN (default: one chain of all N) under patch 1, each chain written
deepest reply first, so that no reply finds its parent already read.
Every tenth reply gives a Reviewed-by.  Deterministic.
usage: gen-replies.py N OUT [LEN]
"""
import sys

n = int(sys.argv[1])
out = open(sys.argv[2], "w")
chain = int(sys.argv[3]) if len(sys.argv) > 3 else n
t0 = 1714986000


def date(t):
    import email.utils
    return email.utils.formatdate(t, localtime=False)


def emit(frm, subject, mid, t, body, irt=None):
    h = [f"From: {frm}", "To: linux-mm@kvack.org", f"Subject: {subject}",
         f"Date: {date(t)}", f"Message-ID: <{mid}>"]
    if irt:
        h += [f"In-Reply-To: <{irt}>", f"References: <s-0@example.org> <{irt}>"]
    out.write("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + "\n".join(h) + "\n\n" + body + "\n")


AUTHOR = "Alice Dev <alice@example.org>"
DIFF = ("---\n mm/frob.c | 1 +\n\ndiff --git a/mm/frob.c b/mm/frob.c\n"
        "index 1111111..2222222 100644\n--- a/mm/frob.c\n+++ b/mm/frob.c\n"
        "@@ -1,3 +1,4 @@\n int frob(void)\n {\n+\treturn %d;\n }\n")
emit(AUTHOR, "[PATCH 0/2] mm: frob helpers", "s-0@example.org", t0, "Two patches.\n")
for k in (1, 2):
    emit(AUTHOR, f"[PATCH {k}/2] mm: frob part {k}", f"s-{k}@example.org", t0 + k,
         f"Part {k}.\n\nSigned-off-by: {AUTHOR}\n" + DIFF % k, irt="s-0@example.org")
i = 0
while i < n:
    size = min(chain, n - i)
    # chain c: r-(i) replies to patch 1, r-(i+j) to r-(i+j-1); deepest first
    for j in reversed(range(size)):
        k = i + j
        parent = "s-1@example.org" if j == 0 else f"r-{k - 1}@example.org"
        who = f"Reviewer {k % 53} <rev{k % 53}@example.org>"
        body = f"> quoted\n\nReply {k}.\n"
        if k % 10 == 0:
            body += f"\nReviewed-by: {who}\n"
        emit(who, "Re: [PATCH 1/2] mm: frob part 1", f"r-{k}@example.org",
             t0 + 100 + k, body, irt=parent)
    i += size

#!/usr/bin/env python3
"""Write hostile mbox files for the robustness tests into DIR.

Each file puts bad messages between good ones, so a test can check that
the bad one is named and the good ones still come through.
usage: gen-bad-input.py DIR
"""
import os
import random
import sys

out = sys.argv[1]
rnd = random.Random(1234)


def good(mid, subject="[PATCH] mm: a good patch", irt=None, refs=None, body=None):
    h = (f"From: Alice Dev <alice@example.org>\nTo: linux-mm@kvack.org\n"
         f"Subject: {subject}\nDate: Mon, 6 May 2024 10:00:00 +0000\n"
         f"Message-ID: <{mid}>\n")
    if irt:
        h += f"In-Reply-To: <{irt}>\n"
    if refs:
        h += "References: " + " ".join(f"<{r}>" for r in refs) + "\n"
    if body is None:
        body = ("Fix it.\n\nSigned-off-by: Alice Dev <alice@example.org>\n---\n"
                "diff --git a/a.c b/a.c\nindex 1..2 100644\n--- a/a.c\n+++ b/a.c\n"
                "@@ -1 +1 @@\n-a\n+b\n-- \n2.39.5\n")
    return f"From mboxrd@z Thu Jan  1 00:00:00 1970\n{h}\n{body}\n"


def write(name, data, mode="w"):
    with open(os.path.join(out, name), mode) as f:
        f.write(data)


# truncated in the middle of a message (and of a header)
base = good("t1@x") + good("t2@x")
write("truncated.mbox", base + good("t3@x")[:60])

# binary garbage, then a good message
garbage = bytes(rnd.getrandbits(8) for _ in range(1 << 20))
with open(os.path.join(out, "garbage.mbox"), "wb") as f:
    f.write(garbage + b"\n\n" + good("g1@x").encode())

# a 100 MB message between two good ones
with open(os.path.join(out, "huge.mbox"), "w") as f:
    f.write(good("h1@x"))
    f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Big <big@x>\n"
            "Subject: [PATCH] huge\nMessage-ID: <huge@x>\n\n")
    line = "x" * 99 + "\n"
    for _ in range(100 * 1024 * 1024 // 100):
        f.write(line)
    f.write("\n")
    f.write(good("h2@x"))

# 10,000 nested replies under one patch
with open(os.path.join(out, "nested.mbox"), "w") as f:
    f.write(good("n0@x", subject="[PATCH] mm: deep thread"))
    parent = "n0@x"
    chain = ["n0@x"]
    for i in range(1, 10001):
        mid = f"n{i}@x"
        body = "I agree.\n"
        if i == 10000:
            body = "Reviewed-by: Alice Dev <alice@example.org>\n"
        refs = chain[:1] + chain[-20:]
        f.write(good(mid, subject="Re: [PATCH] mm: deep thread", irt=parent,
                     refs=refs, body=body))
        parent = mid
        chain.append(mid)

# headers without colons, an unterminated base64 body, invalid UTF-8
write("broken-headers.mbox",
      "From mboxrd@z Thu Jan  1 00:00:00 1970\nThis is not a header\n"
      "Nor this one\nSubject: [PATCH] mm: no colon\n\nbody\n\n" +
      "From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: A <a@x>\n"
      "Subject: [PATCH] b64\nMessage-ID: <b64@x>\nMIME-Version: 1.0\n"
      "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n"
      "RmlYIGl0Lgo=\nQUJD!!!\nAAA\n\n" + good("bh1@x"))
with open(os.path.join(out, "bad-utf8.mbox"), "wb") as f:
    f.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: \xff\xfe <u@x>\n"
            b"Subject: [PATCH] mm: caf\xe9 \xc3\x28 broken\nMessage-ID: <u1@x>\n\n"
            b"Body \xff\xff with a diff\n---\ndiff --git a/a.c b/a.c\n"
            b"index 1..2 100644\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-\xff\n+\xfe\n\n")
    f.write(good("u2@x").encode())

# 30,000 patches without threading from one sender in one second: each
# finds the sends it may join by sender, version and count, not by
# looking at every send made so far
with open(os.path.join(out, "unthreaded.mbox"), "w") as f:
    for i in range(30000):
        f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: Dev <dev@x>\n"
                f"Subject: [PATCH {i % 3 + 1}/3] mm: change {i // 3}\n"
                f"Message-ID: <un{i}@x>\nDate: Thu, 1 Jan 2026 00:00:00 +0000\n\n"
                f"body\n---\n f | 1 +\n\ndiff --git a/f b/f\n\n")

#!/usr/bin/env python3
"""Generate an mbox (mboxrd) of N large patches, about 100 KB each.

Series of 10 patches from 50 authors, threaded to their patch 1.  For
bench/series.sh: as many bytes as many small messages, in few messages.
usage: gen-big.py N OUT
"""
import sys

n = int(sys.argv[1])
with open(sys.argv[2], "w") as f:
    for i in range(n):
        a = i // 10 % 50
        who = f"Dev {a} <dev{a}@example.org>"
        first = i - i % 10
        thread = "" if i == first else (f"In-Reply-To: <big{first}@example.org>\n"
                                         f"References: <big{first}@example.org>\n")
        f.write("From mboxrd@z Thu Jan  1 00:00:00 1970\n"
                f"From: {who}\n"
                f"Subject: [PATCH {i % 10 + 1}/10] mm: large change {i // 10}\n"
                f"Date: Tue, 14 Nov 2023 {10 + i // 3600 % 12:02d}:{i // 60 % 60:02d}:{i % 60:02d} +0000\n"
                f"Message-ID: <big{i}@example.org>\n" + thread + "\n"
                f"Change {i}.\n\nSigned-off-by: {who}\n---\n"
                "diff --git a/mm/big.c b/mm/big.c\n--- a/mm/big.c\n+++ b/mm/big.c\n"
                "@@ -1,0 +1,2700 @@\n" +
                "".join(f"+\tcall_{j}(folio, vma, addr);  /* padding */\n" for j in range(2700)) +
                "\n")

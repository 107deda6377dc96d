"""What the mbox generators share: a patch's diff, from their random source."""


def diff(rnd, files, max_add):
    """One file's diff of 1-4 hunks, each adding 1-max_add pairs of lines"""
    f = rnd.choice(files)
    lines = []
    for h in range(rnd.randint(1, 4)):
        start = rnd.randint(10, 3000)
        ctx = [f"\tcall_{rnd.randint(0, 999)}(folio, vma, addr);" for _ in range(6)]
        add = [f"+\tif (folio_test_{rnd.choice(['dirty', 'anon', 'lru'])}(folio))"
               f"\n+\t\tnr_{rnd.randint(0, 99)}++;" for _ in range(rnd.randint(1, max_add))]
        lines.append(f"@@ -{start},6 +{start},{6 + 2 * len(add)} @@ static int fn_{h}(void)\n" +
                     "\n".join(" " + c for c in ctx[:3]) + "\n" + "\n".join(add) + "\n" +
                     "\n".join(" " + c for c in ctx[3:]))
    return (f"diff --git a/{f} b/{f}\nindex 1234567..89abcde 100644\n--- a/{f}\n+++ b/{f}\n" +
            "\n".join(lines) + "\n")


def message(frm, cc, subject, mid, date, body, irt=None, refs=()):
    """One mboxrd message of linux-mm, as text"""
    h = [f"From: {frm[0]} <{frm[1]}>", "To: linux-mm@kvack.org",
         f"Cc: {cc}, linux-kernel@vger.kernel.org",
         f"Subject: {subject}", f"Date: {date}", f"Message-ID: <{mid}>"]
    if irt:
        h.append(f"In-Reply-To: <{irt}>")
        h.append("References: " + " ".join(f"<{r}>" for r in refs))
    h += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
          "Content-Transfer-Encoding: 8bit"]
    body = "\n".join((">" + l) if l.lstrip(">").startswith("From ") else l
                     for l in body.split("\n"))
    return ("From mboxrd@z Thu Jan  1 00:00:00 1970\n" + "\n".join(h) +
            "\n\n" + body + "\n\n")

#!/usr/bin/env python3
"""Generate patch mails in the forms git mailinfo and lorebot must agree on.

    gen-mailinfo.py N [--scissors] > generated.mbox

N mails (deterministic: the same N gives the same bytes), as an mboxrd, each
a random pick of: the From: header (plain, quoted, encoded, comment form,
bare address, short and long names), the Subject: (tags, list tags before
[PATCH], Re:, folded, encoded words with base64 padding), the Date: (the
forms mailers write), in-body headers (folded From:, a pasted format-patch
"From <sha>" line, "[PATCH] subject" line, blank and blank-looking lines
before them, lowercase names, repeats), where the patch starts ("---",
"--- file", "diff --git", "Index:"), scissors lines, the transfer encoding
(8bit, quoted-printable, base64), the charset (UTF-8, ISO-8859-1), the line
ends (LF, CRLF) and multipart/mixed with an attached patch.  With
--scissors, every mail has a scissors line (for git mailinfo --scissors).
"""
import base64
import quopri
import random
import sys

NAMES = [
    ("Alice Dev", "alice@example.org"),
    ("J\u00f6rg R\u00f6del", "joerg@example.de"),
    ("Dev, Alice", "alice.dev@example.org"),
    ("Xu", "xu@example.cn"),
    ("A" * 30 + " " + "B" * 31, "long@example.com"),
    ("\u5f20\u4e09", "zhang@example.cn"),
    ("Bob (the builder)", "bob@example.net"),
]

TITLES = [
    "mm: fix frob_reset() overflow",
    "mm/vmscan: clamp shrink_list() to the LRU size",
    "mm: page_alloc: a title long enough that git format-patch folds it over two lines",
    "mm: caf\u00e9 na\u00efve \u2013 unicode in the title",
    "Re: the title looks like a reply",
    "[mm] bracket after the tags",
]

DATES = [
    "Mon, 6 May 2024 10:00:00 +0000",
    "Tue, 14 Jan 2025 19:38:04 -0930",
    "Sat, 07 Feb 2026 16:16:09 +0800 (CST)",
    "6 May 2024 10:00:00 +0100",
    "Wed, 31 Dec 2025 23:59:59 -0000",
]

DIFF = (
    "diff --git a/mm/frob.c b/mm/frob.c\n"
    "index 1111111..2222222 100644\n"
    "--- a/mm/frob.c\n"
    "+++ b/mm/frob.c\n"
    "@@ -1,3 +1,4 @@\n"
    " int frob(void)\n"
    " {\n"
    "+\treturn 1;\t \n"
    " }\n"
)

SHA = "e6807f3efca28b30decfecb1732a56c7db1137ee"


def qword(text, rnd):
    """An RFC 2047 encoded form of text (Q, B, or B split into padded words)."""
    data = text.encode("utf-8")
    kind = rnd.choice(["q", "b", "bsplit"])
    if kind == "q":
        enc = "".join(chr(c) if c < 128 and chr(c).isalnum() else "=%02X" % c
                      for c in data)
        return "=?UTF-8?Q?%s?=" % enc
    if kind == "b":
        return "=?utf-8?b?%s?=" % base64.b64encode(data).decode()
    # one or two bytes per word: padding in every word, GMime 3.2.13's bug
    words, i = [], 0
    while i < len(data):
        n = rnd.choice([1, 2, 3])
        words.append("=?utf-8?b?%s?=" % base64.b64encode(data[i:i + n]).decode())
        i += n
    return " ".join(words)


def from_header(rnd):
    name, addr = rnd.choice(NAMES)
    form = rnd.choice(["plain", "quoted", "encoded", "comment", "bare", "angle"])
    if form == "bare":
        return addr
    if form == "angle":
        return "<%s>" % addr
    if form == "comment":
        return "%s (%s)" % (addr, name)
    if form == "encoded" or not name.isascii():
        return "%s <%s>" % (qword(name, rnd), addr)
    if form == "quoted" or "," in name or "(" in name:
        return '"%s" <%s>' % (name, addr)
    return "%s <%s>" % (name, addr)


def subject(rnd, title):
    tags = rnd.choice(["[PATCH]", "[PATCH v2 1/2]", "[PATCH RESEND v3 2/2]",
                       "[RFC PATCH mm-new 0/3]", "[PATCHv4 3/5]", ""])
    lead = rnd.choice(["", "", "[linux-mm] ", "[ext] ", "Re: ", "[list] Re: "])
    s = (lead + tags + " " + title).strip()
    if rnd.random() < 0.3 or not s.isascii():
        # encode the title part
        s = (lead + tags + " " + qword(title, rnd)).strip()
    if len(s) > 70 and rnd.random() < 0.7:
        cut = s.rfind(" ", 0, 60)
        s = s[:cut] + "\n " + s[cut + 1:]
    return s


def inbody(rnd, title):
    lines = []
    blank_before = rnd.choice(["", "", "\n", "\n\n", " \n"])
    kind = rnd.choice(["none", "none", "from", "folded", "all", "pasted",
                       "patchline", "lower", "repeat", "nospace"])
    name, addr = rnd.choice(NAMES)
    if kind == "none":
        return blank_before
    if kind == "pasted":
        lines.append(">From %s Mon Sep 17 00:00:00 2001" % SHA)
        lines.append("From: %s <%s>" % (name, addr))
        lines.append("Date: " + rnd.choice(DATES))
        lines.append("Subject: [PATCH] " + title)
    elif kind == "patchline":
        lines.append("[PATCH] " + title)
    elif kind == "folded":
        lines.append("From: %s" % name)
        lines.append("\t<%s>" % addr)
        if rnd.random() < 0.5:
            lines.append("Subject: [PATCH 1/2] " + title[:20])
            lines.append(" " + title[20:])
    elif kind == "lower":
        lines.append("from: %s <%s>" % (name, addr))
        lines.append("subject: " + title)
    elif kind == "repeat":
        lines.append("From: %s <%s>" % (name, addr))
        lines.append("From: Other Person <other@example.com>")
    elif kind == "nospace":
        lines.append("From:%s <%s>" % (name, addr))
    elif kind == "all":
        lines.append("From: %s <%s>" % (qword(name, rnd) if rnd.random() < 0.5
                                        else name, addr))
        lines.append("Date: " + rnd.choice(DATES))
        lines.append("Subject: " + title)
    else:
        lines.append("From: %s <%s>" % (name, addr))
    return blank_before + "\n".join(lines) + "\n" + rnd.choice(["\n", "\n", ""])


def body(rnd, title, scissors):
    text = inbody(rnd, title)
    text += "Fix the frob.  It overflowed when the counter reached its limit,\n"
    text += "as seen on caf\u00e9 machines.\n\n"
    if scissors and (scissors == "always" or rnd.random() < 0.5):
        text += "Some discussion above the cut.\n\n"
        text += rnd.choice(["-- >8 --", "8<----------", "--- >8 ---", "- - >% - -"])
        text += "\n" + rnd.choice(["", "From: Cut Author <cut@example.com>\n",
                                   "Subject: after the cut\n"]) + "\n"
        text += "The real message.\n\n"
    text += "Signed-off-by: Alice Dev <alice@example.org>\n"
    if rnd.random() < 0.3:
        text += "Reviewed-by: Dave Reviewer <dave@example.org>\n"
    brk = rnd.choice(["sep", "sep", "sep-space", "diff", "index", "dashfile"])
    if brk == "sep":
        text += "---\n mm/frob.c | 1 +\n 1 file changed, 1 insertion(+)\n\n" + DIFF
    elif brk == "sep-space":
        text += "--- \nNotes: v2 fixes the typo\n\n" + DIFF
    elif brk == "diff":
        text += DIFF
    elif brk == "index":
        text += "Index: mm/frob.c\n===\n" + DIFF[DIFF.index("--- a"):]
    else:
        text += DIFF[DIFF.index("--- a"):]
    if rnd.random() < 0.7:
        text += "-- \n2.39.5\n"
    return text


def one(rnd, i, all_cut):
    title = rnd.choice(TITLES)
    scissors = all_cut or rnd.random() < 0.3
    text = body(rnd, title, scissors)
    charset = rnd.choice(["utf-8", "utf-8", "iso-8859-1"])
    try:
        data = text.encode(charset)
    except UnicodeEncodeError:
        charset = "utf-8"
        data = text.encode(charset)
    cte = rnd.choice(["8bit", "8bit", "7bit", "quoted-printable", "base64", None])
    if cte == "7bit" and not data.isascii():
        cte = "8bit"
    if cte == "quoted-printable":
        payload = quopri.encodestring(data).decode("ascii")
    elif cte == "base64":
        raw = base64.b64encode(data).decode("ascii")
        payload = "\n".join(raw[j:j + 76] for j in range(0, len(raw), 76)) + "\n"
    else:
        payload = data.decode(charset)
    hdr = [
        "From: " + from_header(rnd),
        "To: linux-mm@kvack.org",
        "Subject: " + subject(rnd, title),
        "Date: " + rnd.choice(DATES),
        "Message-ID: <gen-%d@lorebot.invalid>" % i,
        "MIME-Version: 1.0",
    ]
    multipart = rnd.random() < 0.1
    if multipart:
        b = "lorebot-gen-%d" % i
        hdr.append('Content-Type: multipart/mixed; boundary="%s"' % b)
        msg = "\n".join(hdr) + "\n\n"
        msg += "--%s\nContent-Type: text/plain; charset=utf-8\n\n" % b
        # the patch attached: from its first line on
        cut = min(i for i in (text.find(m) for m in ("\ndiff --git", "\nIndex:",
                                                      "\n--- a/")) if i >= 0) + 1
        msg += text[:cut]
        msg += "--%s\nContent-Type: text/x-patch; charset=utf-8\n" % b
        msg += 'Content-Disposition: attachment; filename="p.patch"\n\n'
        msg += text[cut:]
        msg += "--%s--\n" % b
        out = msg.encode("utf-8")
    else:
        hdr.append("Content-Type: text/plain; charset=%s" % charset)
        if cte:
            hdr.append("Content-Transfer-Encoding: " + cte)
        head = ("\n".join(hdr) + "\n\n").encode("utf-8")
        if cte in ("quoted-printable", "base64"):
            out = head + payload.encode("ascii")
        else:
            out = head + data
    if rnd.random() < 0.15:
        out = out.replace(b"\n", b"\r\n")
    return out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    all_cut = "--scissors" in sys.argv
    rnd = random.Random(21 if all_cut else 20)
    w = sys.stdout.buffer
    for i in range(n):
        msg = one(rnd, i, "always" if all_cut else False)
        w.write(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n")
        for line in msg.split(b"\n")[:-1] if msg.endswith(b"\n") else msg.split(b"\n"):
            stripped = line.lstrip(b">")
            if stripped.startswith(b"From "):
                line = b">" + line
            w.write(line + b"\n")
        w.write(b"\n")


if __name__ == "__main__":
    main()

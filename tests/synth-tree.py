#!/usr/bin/env python3
"""Write a tree the patches of a real thread apply to.

    synth-tree.py MBOX DIR

For every file the thread's patches change, the lines their hunks expect
(context and removed lines) at the line numbers the hunks give, and a
filler line everywhere else, the lines of a patch that a later one needs
followed back to where they were: git am and lorebot apply both apply
the patches in order to it, so that the commits they make can be compared
without the project's real tree.  New files are left to the patches.
"""
import email
import email.policy
import os
import re
import sys

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


def patches(path):
    data = open(path, "rb").read()
    for raw in re.split(rb"(?m)^From mboxrd@z .*\n", data):
        if not raw.strip():
            continue
        raw = re.sub(rb"(?m)^>(>*From )", rb"\1", raw)
        m = email.message_from_bytes(raw, policy=email.policy.compat32)
        if re.match(r"(?i)\s*re:", str(m.get("Subject", ""))):
            continue
        for part in m.walk():
            if part.get_content_type() in ("text/plain", "text/x-patch", "text/x-diff"):
                text = (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
                if "\ndiff --git " in "\n" + text:
                    yield text


class File:
    """a file as the patches seen so far need it: known original lines,
    and where each line of the current text comes from"""

    def __init__(self):
        self.orig = {}		# original line number -> text
        self.cur = []		# ("orig", n) or ("added", text)
        self.last = 0		# original lines in cur so far
        self.delta = 0		# lines the patch's earlier hunks added

    def at(self, p):
        while len(self.cur) <= p:
            self.last += 1
            self.cur.append(("orig", self.last))
        return self.cur[p]

    def expect(self, p, text, name):
        kind, v = self.at(p)
        if kind == "added":
            if v != text:
                sys.exit("%s: a hunk does not match an earlier patch" % name)
        elif self.orig.setdefault(v, text) != text:
            sys.exit("%s: a hunk does not match an earlier patch" % name)

    def hunk(self, start, body, name):
        """
        body: the hunk's lines, each with its ' ', '-' or '+'; start is
        in the numbers before the patch: earlier hunks of the same patch
        moved it by self.delta
        """
        p = (start - 1 if start > 0 else 0) + self.delta
        self.delta += sum(1 for l in body if l[:1] == "+") - \
            sum(1 for l in body if l[:1] == "-")
        new = []
        q = p
        for l in body:
            if l[:1] in (" ", "-"):
                self.expect(q, l[1:], name)
                if l[:1] == " ":
                    new.append(self.cur[q])
                q += 1
            else:
                new.append(("added", l[1:]))
        self.cur[p:q] = new


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    files = {}
    for text in patches(sys.argv[1]):
        lines = text.split("\n")
        i = 0
        name = None
        while i < len(lines):
            line = lines[i]
            if line.startswith("--- "):
                name = None if line == "--- /dev/null" else line[4:].split("\t")[0]
                if name and name.startswith("a/"):
                    name = name[2:]
                if name:
                    files.setdefault(name, File()).delta = 0
                i += 1
                continue
            mo = HUNK.match(line)
            if mo and name:
                start = int(mo.group(1))
                count = int(mo.group(2)) if mo.group(2) is not None else 1
                body = []
                i += 1
                while i < len(lines):
                    l = lines[i]
                    if count == 0 and not l.startswith("+"):
                        break
                    if l.startswith((" ", "-")) or l == "":
                        body.append(l if l else " ")
                        count -= 1
                    elif l.startswith("+"):
                        body.append(l)
                    elif not l.startswith("\\"):
                        break
                    i += 1
                files[name].hunk(start, body, name)
                continue
            i += 1
    for name, f in files.items():
        last = max(f.orig) if f.orig else 0
        path = os.path.join(sys.argv[2], name)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as out:
            for n in range(1, last + 1):
                out.write(f.orig.get(n, "filler line %d" % n) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

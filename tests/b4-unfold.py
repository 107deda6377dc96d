#!/usr/bin/env python3
"""Make a thread readable by Debian's b4 0.12, for b4 only.

    b4-unfold.py IN OUT

b4 0.12 fails on a folded Subject: or From: (b4 am -m crashes) and on a
Date: whose zone is 24 hours or more away (Darrick Wong's +9900 of New
Year's Eve 2023 on linux-xfs): OUT is the mboxrd IN with those headers
unfolded and such zones made +0000.  Prints "UNFOLDED ZONES", the headers
changed.  lorebot always reads IN.
"""
import re
import sys

HDR = re.compile(rb"(?im)^(subject|from):[^\n]*(\n[ \t][^\n]*)+")
BAD_ZONE = re.compile(rb"(?im)^(date:.*\d\d:\d\d(?::\d\d)?\s+)[+-](?:2[4-9]|[3-9]\d)\d\d\b")


def b4_copy(src, dst):
    """[headers unfolded, zones fixed]"""
    data = open(src, "rb").read()
    n = [0, 0]

    def unfold(mo):
        n[0] += 1
        return re.sub(rb"\r?\n[ \t]+", b" ", mo.group(0))

    def zone(mo):
        n[1] += 1
        return mo.group(1) + b"+0000"
    out = []
    for part in re.split(rb"(?m)^(From mboxrd@z .*\n)", data):
        head, sep, body = part.partition(b"\n\n")
        out.append(BAD_ZONE.sub(zone, HDR.sub(unfold, head)) + sep + body)
    with open(dst, "wb") as f:
        f.write(b"".join(out))
    return n


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print("%d %d" % tuple(b4_copy(sys.argv[1], sys.argv[2])))

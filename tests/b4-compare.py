#!/usr/bin/env python3
"""Compare what b4 selected with what lorebot assembled.

    b4-compare.py B4_MBOX SERIES_JSON VERSION_ID

B4_MBOX is the output of `b4 am -o - <msgid>` (the patches b4 picked, with
the trailers it collected), SERIES_JSON the output of `lorebot series
--json` and VERSION_ID the lorebot version to compare (its "id").

Prints one line per check, "ok <what>" or "DIFF <what>: <details>":
  patches   the Message-IDs of the patches, in order
  trailers  per patch, the trailer lines of the commit message b4 wrote
            (its own and the collected ones) against lorebot's trailers,
            compared as multisets (b4 orders collected trailers its own way)
Exit status: 1 when the patches differ, 0 otherwise (trailer differences
are reported, the caller decides).
"""
import email
import email.policy
import json
import re
import sys

TRAILER = re.compile(r"^([A-Za-z][A-Za-z0-9-]*):\s+(.*\S)\s*$")


def split_mbox(text):
    msgs, cur = [], None
    for line in text.splitlines(keepends=True):
        if line.startswith(("From git@z ", "From mboxrd@z ")):
            if cur is not None:
                msgs.append("".join(cur))
            cur = []
            continue
        if cur is not None:
            cur.append(line)
    if cur:
        msgs.append("".join(cur))
    return msgs


def trailer_block(body):
    """The last paragraph before '---' (the commit message's trailers)."""
    head = body.split("\n---\n", 1)[0]
    paras = [p for p in head.rstrip("\n").split("\n\n") if p.strip()]
    if not paras:
        return []
    out = []
    for line in paras[-1].splitlines():
        m = TRAILER.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def main():
    b4 = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    series = json.load(open(sys.argv[2]))
    vid = sys.argv[3]
    ours = [s for s in series["series"] if s["id"] == vid]
    if not ours:
        print(f"DIFF version: lorebot has no version <{vid}>")
        return 1
    ours = ours[0]
    picked = []
    for raw in split_mbox(b4):
        m = email.message_from_string(raw, policy=email.policy.default)
        mid = (m["Message-Id"] or "").strip().strip("<>")
        body = m.get_content() if not m.is_multipart() else ""
        picked.append((mid, trailer_block(body)))
    b4_ids = [mid for mid, _ in picked]
    our_ids = [p["msgid"] for p in ours["patches"]]
    rc = 0
    if b4_ids == our_ids:
        print(f"ok patches: {len(b4_ids)} in the same order")
    else:
        print(f"DIFF patches: b4 {b4_ids} lorebot {our_ids}")
        rc = 1
    for (mid, tb), p in zip(picked, ours["patches"]):
        theirs = sorted(f"{n}: {v}" for n, v in tb)
        mine = sorted(f"{t['name']}: {t['value']}" for t in p["trailers"])
        if theirs == mine:
            print(f"ok trailers {p['n']}: {len(mine)} the same")
        else:
            only_b4 = [t for t in theirs if t not in mine]
            only_us = [t for t in mine if t not in theirs]
            print(f"DIFF trailers {p['n']}: only b4 {only_b4}; only lorebot {only_us}")
    return rc


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Take a reply apart for the tests: JSON with its headers (decoded), its
body, how it threads into the fixture mboxes, and its prose lines that are
longer than 78 columns.

  mail-summary.py MAIL [--mbox MBOX]...
"""
import argparse
import email
import email.policy
import email.utils
import json
import mailbox
import re
import sys

# Lines that are not prose: compiler output, code, commands, quoted tags,
# the key/value block (as the kernel test robot's)
VERBATIM = re.compile(r"^(\s|>|-|\||\[|vim \+|url:|base:|branch:|patch link:|"
                      r"patch subject:|config:|compiler:|\S+:\d+(:\d+)?: )")


def ids(value):
    return re.findall(r"<([^<>\s]+)>", value or "")


def long_prose(body):
    out = []
    verbatim = False
    for line in body.split("\n"):
        if re.match(r"^(All (errors|warnings|new warnings|errors and new warnings)|"
                    r"New kselftest)", line):
            verbatim = True
        elif re.match(r"^(To reproduce|To try it)", line):
            verbatim = False
        if verbatim or VERBATIM.match(line):
            continue
        if len(line) > 78:
            out.append(line)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mail")
    p.add_argument("--mbox", action="append", default=[])
    a = p.parse_args()
    raw = open(a.mail, "rb").read()
    m = email.message_from_bytes(raw, policy=email.policy.default)
    body = m.get_content() if not m.is_multipart() else ""
    head = raw.split(b"\n\n", 1)[0].split(b"\r\n\r\n", 1)[0]
    out = {
        "header_names": [k for k in m.keys()],
        "raw_header_lines": head.decode("ascii", "replace").replace("\r", "").split("\n"),
        "from": str(m["From"]),
        "to": [e for n, e in email.utils.getaddresses([str(x) for x in m.get_all("To", [])])],
        "cc": [e for n, e in email.utils.getaddresses([str(x) for x in m.get_all("Cc", [])])],
        "to_names": [n for n, e in email.utils.getaddresses([str(x) for x in m.get_all("To", [])])],
        "subject": str(m["Subject"]),
        "message_id": ids(str(m["Message-ID"]))[0] if m["Message-ID"] else None,
        "in_reply_to": ids(str(m["In-Reply-To"])),
        "references": ids(str(m["References"])),
        "date": email.utils.parsedate_to_datetime(str(m["Date"])).isoformat() if m["Date"] else None,
        "mime": str(m["MIME-Version"]),
        "content_type": m.get_content_type(),
        "charset": m.get_content_charset(),
        "cte": str(m["Content-Transfer-Encoding"]),
        "body": body,
        "long_prose": long_prose(body),
        "ascii_headers": all(b < 128 for b in head),
    }
    if a.mbox:
        msgs = {}
        for path in a.mbox:
            for msg in mailbox.mbox(path):
                mid = ids(msg["Message-ID"])
                if mid:
                    msgs[mid[0]] = msg
        parent = msgs.get(out["in_reply_to"][0]) if out["in_reply_to"] else None
        chain = []
        if parent is not None:
            chain = ids(parent["References"]) + [ids(parent["Message-ID"])[0]]
        out["thread"] = {
            "parent_found": parent is not None,
            "parent_subject": str(parent["Subject"]) if parent is not None else None,
            "parent_from": email.utils.parseaddr(parent["From"])[1] if parent is not None else None,
            "parent_to_cc": sorted(set(e.lower() for n, e in email.utils.getaddresses(
                parent.get_all("To", []) + parent.get_all("Cc", [])))) if parent is not None else [],
            "references_ok": chain == out["references"],
            "chain": chain,
        }
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

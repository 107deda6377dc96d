#!/usr/bin/env python3
# b4's side of its external review check protocol (b4 0.15+, `b4 review`,
# src/b4/review/checks.py of mricon/b4 at 1f2f768: load_check_cmds(),
# parse_cmd(), _run_external_cmd()), played strictly for lorebot's
# conformance test (t0711): the commands come from `git config --get-all
# b4.review-{perpatch,series}-check-cmd` (the user's configuration: b4
# ignores a tree's .b4-config for these), are split as b4 splits them,
# get the message on stdin as bytes and must answer with a JSON array.
#
#	b4-side.py perpatch|series MAIL
#
# Prints one line of JSON: {"exit": N, "stdout": "...", "results": [what
# b4 would show], "errors": [where the answer breaks the protocol]}.
# b4 itself is lenient (a missing status reads as fail, a non-array is
# wrapped); this side reports every such departure as an error instead.
import json
import shlex
import subprocess
import sys

FIELDS = {"tool": True, "status": True, "summary": False, "url": False, "details": False}


def commands(kind):
    out = subprocess.run(["git", "config", "--get-all", "b4.review-%s-check-cmd" % kind],
                         capture_output=True, text=True)
    return [l for l in out.stdout.splitlines() if l.strip()]


def parse_cmd(cmdstr):
    sp = shlex.shlex(cmdstr, posix=True)
    sp.whitespace_split = True
    return list(sp)


def run(argv, data):
    p = subprocess.run(argv, input=data, capture_output=True)
    errors, results = [], []
    out = p.stdout
    if not out or not out.strip():
        if p.returncode:
            # b4: "exited with error code N", stderr as the details
            results.append({"tool": argv[0].rsplit("/", 1)[-1], "status": "fail",
                            "summary": "exited with error code %d" % p.returncode,
                            "details": p.stderr.decode(errors="replace")})
        else:
            errors.append("no output and exit 0 (b4 shows nothing; [] says so)")
        return p, results, errors
    if p.returncode:
        errors.append("JSON on stdout with exit %d (b4 would ignore the exit code)"
                      % p.returncode)
    try:
        data = json.loads(out)
    except json.JSONDecodeError as ex:
        errors.append("invalid JSON: %s" % ex)
        return p, results, errors
    if not isinstance(data, list):
        errors.append("not a JSON array")
        data = [data]
    for i, entry in enumerate(data):
        if not isinstance(entry, dict):
            errors.append("item %d is not an object" % i)
            continue
        for k, required in FIELDS.items():
            if k not in entry:
                if required:
                    errors.append("item %d has no %s" % (i, k))
            elif not isinstance(entry[k], str):
                errors.append("item %d: %s is not a string" % (i, k))
        for k in entry:
            if k not in FIELDS:
                errors.append("item %d: unknown key %s" % (i, k))
        if entry.get("status") not in ("pass", "warn", "fail"):
            errors.append("item %d: status %r is not pass, warn or fail" % (i, entry.get("status")))
        if "\n" in entry.get("summary", ""):
            errors.append("item %d: summary is not one line" % i)
        url = entry.get("url", "")
        if url and not url.startswith(("http://", "https://")):
            errors.append("item %d: url %r is not a link" % (i, url))
        results.append({"tool": entry.get("tool"), "status": entry.get("status", "fail"),
                        "summary": entry.get("summary", ""), "url": entry.get("url", ""),
                        "details": entry.get("details", "")})
    return p, results, errors


def main():
    kind, mail = sys.argv[1], sys.argv[2]
    cmds = commands(kind)
    if not cmds:
        print(json.dumps({"exit": None, "errors": ["no b4.review-%s-check-cmd" % kind]}))
        return
    data = open(mail, "rb").read()
    p, results, errors = run(parse_cmd(cmds[0]), data)
    print(json.dumps({"exit": p.returncode, "stdout": p.stdout.decode(errors="replace"),
                      "results": results, "errors": errors}))


main()

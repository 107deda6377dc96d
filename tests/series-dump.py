#!/usr/bin/env python3
"""The assembled tables of a database, one row a line (the times of
writing left out), to compare two databases with cmp.

usage: series-dump.py DB all|live
       series-dump.py DB all|live OUT [DB all|live OUT]...
live: only what a fresh database would hold (no versions gone).  The
second form writes each dump to its OUT, several in one start of
Python (t0107 dumps four databases after each order it feeds).
"""
import sqlite3, sys


def dump(path, mode, out):
    db = sqlite3.connect(path)
    live = mode == 'live'
    gone = " AND v.gone = 0" if live else ""
    vcols = ("v.id, v.series, v.ord, v.version, v.total, v.have, v.complete, v.rfc,"
             " v.resend, v.tree, v.title, v.author_name, v.author_email, v.cover,"
             " v.base_commit, v.change_id, v.superseded_by, v.date, v.replies, v.json")
    if not live:
        vcols += ", v.generation, v.gone"
    queries = [
        "SELECT s.id, s.title, s.author_name, s.author_email, s.first_date, s.first_version"
        " FROM series s WHERE EXISTS (SELECT 1 FROM versions v WHERE v.series = s.id%s)"
        " ORDER BY s.id" % gone,
        "SELECT %s FROM versions v WHERE 1%s ORDER BY v.id" % (vcols, gone),
        # the row of a message depends on the order it was stored in
        "SELECT p.version, p.n, %s p.msgid, p.subject, p.title, p.author_name,"
        " p.author_email FROM patches p JOIN versions v ON v.id = p.version WHERE 1%s"
        " ORDER BY p.version, p.n" % ("" if live else "p.message,", gone),
        "SELECT t.* FROM trailers t JOIN versions v ON v.id = t.version WHERE 1%s"
        " ORDER BY t.version, t.n, t.pos" % gone,
        "SELECT msgid, line FROM series_problems ORDER BY msgid, line",
        "SELECT key, value FROM state WHERE key = 'messages'",
    ]
    for q in queries:
        for row in db.execute(q):
            out.write(repr(row) + '\n')
    db.close()


args = sys.argv[1:]
if len(args) == 2:
    dump(args[0], args[1], sys.stdout)
else:
    for i in range(0, len(args), 3):
        with open(args[i + 2], 'w') as f:
            dump(args[i], args[i + 1], f)

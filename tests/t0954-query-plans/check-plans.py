#!/usr/bin/env python3
"""Read LOREBOT_DB_PLANS files, say which statement reads what it should not.

usage: check-plans.py PLANS... > report

A statement may read a table whose size follows the archive (messages,
versions, patches...) only through the primary key or an index, and never
walk every live version (versions_live on "gone" alone), unless it is one of
ALLOWED below, whose plan must then be the one named.  The tables that do
not grow with the archive (the lists, the state, the news queues of one
poll, temporary tables of one assembly) may be scanned.

Prints one line a distinct statement, "ok SQL" or "BAD SQL: why", and
exits 1 if any is bad.
"""
import re
import sys

# Tables that stay small whatever the archive: scanning them is fine
SMALL = {"schema_version", "lists", "state", "lore_epochs", "series_pending",
         "version_states_dirty", "sqlite_master", "sqlite_schema",
         "sqlite_temp_master", "sqlite_stat1"}

# (a pattern of the statement, the plan step it must have, why it may walk)
ALLOWED = [
    (r"^UPDATE versions SET gone = 1, .* WHERE gone = 0 AND id NOT IN "
     r"\(SELECT id FROM temp\.written\)",
     r"versions_live \(gone=\?\)",
     "the full assembly (db rebuild, a first import) marks every version it "
     "did not write again: it reads them all by design"),
    (r"^SELECT id FROM versions INDEXED BY versions_live WHERE gone = 0 AND",
     r"^S(CAN|EARCH) versions USING (COVERING )?INDEX versions_live( \(gone=\?\))?$",
     "the dashboard's list: newest first along versions_live, stopping at "
     "the page's LIMIT (a text filter reads until the page is full)"),
    (r"^SELECT count\(\*\) FROM versions INDEXED BY versions_live WHERE gone = 0",
     r"versions_live",
     "the dashboard's total for its pager: a count of the index alone"),
    (r"^SELECT count\(\*\) FROM version_states",
     r"version_states",
     "the dashboard's total of a state: a count of that state's index range"),
    (r"^SELECT state, count\(\*\) FROM version_states GROUP BY state",
     r"version_states",
     "the dashboard's and /metrics' count of each state: one pass over the "
     "states' index"),
    (r"^SELECT state, count\(\*\) FROM (jobs|replies) GROUP BY state",
     r"^SCAN (jobs|replies) USING COVERING INDEX (jobs|replies)_state$",
     "/metrics' jobs and replies by state: a count of their state index, "
     "what the gauge is"),
    (r"^SELECT v\.id FROM versions v WHERE v\.date >= \?1 AND NOT EXISTS",
     r"^(SCAN v|SEARCH v USING INDEX versions_live)",
     "the daemon's start: every version not replied to yet (daemon.maxage 0: "
     "of any age), once a start, planned a slice a turn"),
]

KEYWORDS = {"WHERE", "ON", "INDEXED", "CROSS", "JOIN", "LEFT", "INNER", "ORDER",
            "GROUP", "LIMIT", "USING", "SET", "NATURAL", "AS", "UNION", "VALUES",
            "SELECT", "AND", "OR", "HAVING", "WINDOW", "RETURNING", "OUTER"}


def aliases(sql):
    """alias or table name -> table, for the tables a statement names"""
    out = {}
    for table, alias in re.findall(
            r"\b(?:FROM|JOIN|UPDATE|INTO)\s+([\w.]+)(?:\s+(?:AS\s+)?(\w+))?", sql, re.I):
        out[table] = table
        out[table.split(".")[-1]] = table
        if alias and alias.upper() not in KEYWORDS:
            out[alias] = table
    return out


def read(paths):
    stmts = {}
    for path in paths:
        sql = None
        for line in open(path, encoding="utf-8", errors="replace"):
            line = line.rstrip("\n")
            if line.startswith("sql "):
                sql = line[4:].strip()
                stmts.setdefault(sql, set())
                cur = stmts[sql]
            elif line.startswith("plan ") and sql is not None:
                cur.add(line.split(" ", 2)[2])
    return stmts


def table_of(name, names):
    return names.get(name, name)


def growing(table):
    t = table.lower()
    # temporary tables of one assembly; json_each() of a bound value
    if t.startswith("temp.") or t.split(".")[-1] in SMALL or t == "json_each":
        return False
    return True


def problems(sql, plan, allowed=None):
    names = aliases(sql)
    temps = {t.split(".")[-1] for t in names.values() if t.lower().startswith("temp.")}
    bad = []
    for step in sorted(plan):
        if allowed and re.search(allowed, step):
            continue
        m = re.match(r"^SCAN (\S+)", step)
        if m and not m.group(1).startswith("("):
            t = table_of(m.group(1), names)
            if t.split(".")[-1] in temps or t in ("CONSTANT",):
                continue
            if growing(t):
                bad.append("reads %s whole (%s)" % (t, step))
        m = re.match(r"^SEARCH (\S+) USING (?:COVERING )?INDEX versions_live \(gone=\?\)$", step)
        if m:
            bad.append("walks every live version (%s)" % step)
    return bad


def main():
    stmts = read(sys.argv[1:])
    failed = False
    for sql in sorted(stmts):
        plan = stmts[sql]
        why = None
        bad = problems(sql, plan)
        for pat, need, reason in ALLOWED:
            if re.search(pat, sql):
                why = reason
                if not any(re.search(need, s) for s in plan):
                    bad = ["not its intended plan /%s/: %s" % (need, "; ".join(sorted(plan)))]
                else:
                    bad = problems(sql, plan, need)
                break
        if bad:
            failed = True
            print("BAD %s: %s" % (sql[:200], "; ".join(bad)))
        else:
            print("ok %s%s" % (sql[:200], " (allowed: %s)" % why if why else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the defaults a configuration page's key tables give against the key
table (`lorebot config --list-keys` on stdin).

Usage: doc-defaults.py PAGE.md <keys.txt

A table row names its sections in its first cell (`build`, `arch "NAME"`) and
its keys with their defaults in the second (`jobs` (2), `timeout` (45m)); a
row of the "Keys of ..." tables names one key per row, its default in the
next cell.  Prints one line per default that differs, PAGE:LINE: KEY: page
says X, the table Y; exits 1 when there is one.
"""
import re
import sys


def keys_table(text):
    table = {}
    for m in re.finditer(r'^(\S+) \((\w+)(?:, default (.*))?\)$', text, re.M):
        table[m.group(1)] = m.group(3)
    return table


def norm(v):
    return v.strip().strip('`').lower()


def candidates(table, sections, key):
    out = []
    for s in sections:
        for k in (f'{s}.{key}', f'{s}.*.{key}'):
            if k in table:
                out.append(k)
    return out


def main():
    page = sys.argv[1]
    table = keys_table(sys.stdin.read())
    bad = checked = 0
    for n, line in enumerate(open(page), 1):
        if not line.startswith('| `'):
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 2:
            continue
        sections = re.findall(r'`([a-z]+)(?: "[A-Z]+")?`', cells[0])
        pairs = re.findall(r'`([a-z]+)` \(([^()]*(?:\([^()]*\))?[^()]*)\)', cells[1])
        if not pairs and '.' in cells[0]:
            # "Keys of" tables: `section.key`, default in the next cell
            for full in re.findall(r'`([a-z]+\.[a-z.*]+)`', cells[0]):
                if full in table and cells[1] and table[full] is not None:
                    checked += 1
                    if norm(cells[1]) != norm(table[full]):
                        print(f'{page}:{n}: {full}: the page says {cells[1]}, '
                              f'the key table {table[full]}')
                        bad += 1
            continue
        for key, said in pairs:
            cands = [k for k in candidates(table, sections, key)
                     if table[k] is not None]
            if len(cands) != 1:
                continue
            said = re.split(r': |;', said)[0]
            checked += 1
            if norm(said) != norm(table[cands[0]]):
                print(f'{page}:{n}: {cands[0]}: the page says ({said}), '
                      f'the key table {table[cands[0]]}')
                bad += 1
    print(f'# {checked} defaults checked', file=sys.stderr)
    return 1 if bad else 0


sys.exit(main())

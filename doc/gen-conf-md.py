#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the key list of doc/technical/configuration.md from the key table
(bot/conf/config-keys.h), as 'lorebot config --list-keys' prints it on stdin:
what lies between the page's two marker lines is replaced by one table per
section, each key with its type, default and meaning, in the order of the
key table.  The rest of the page is written by hand.

Usage: lorebot config --list-keys | doc/gen-conf-md.py PAGE.md >OUT.md
doc/gen-man.sh runs it; tests/t0003-man-pages.t checks that the committed
page is its output.
"""
import re
import sys

BEGIN = ('<!-- keys: generated from the key table (bot/conf/config-keys.h) by '
         'doc/gen-man.sh; edit the table, not this list -->')
END = '<!-- end of the generated keys -->'


def cell(s):
    # "<statedir>" is no HTML tag; a | does not end the cell
    s = re.sub(r'([\w./~$-]*<[^<>\s]+>[\w./~$-]*)', r'`\1`', s)
    return s.replace('|', '\\|')


def keys(text):
    out = []
    for line in text.splitlines():
        if line.startswith('\t'):
            out[-1][3].append(line.strip())
            continue
        m = re.match(r'^(\S+) \((.*)\)$', line)
        if not m:
            sys.exit(f'gen-conf-md: cannot read the key line {line!r}')
        kind, _, default = m.group(2).partition(', default ')
        out.append([m.group(1), kind, default, []])
    return out


def table(text):
    sections = {}
    for key, kind, default, help_ in keys(text):
        sections.setdefault(key.split('.')[0], []).append((key, kind, default, help_))
    out = ['Every key, in the order of the key table; `*` stands for a '
           'subsection name, as in `[list "linux-mm"]`.']
    for sect, rows in sections.items():
        out += ['', f'### `[{sect}]`', '',
                '| key | type | default | meaning |', '| --- | --- | --- | --- |']
        for key, kind, default, help_ in rows:
            out.append(f'| `{key}` | {cell(kind)} | '
                       f'{"`" + cell(default) + "`" if default else ""} | '
                       f'{cell(" ".join(help_))} |')
    return out


def main():
    page = open(sys.argv[1]).read().splitlines()
    if BEGIN not in page or END not in page:
        sys.exit(f'gen-conf-md: {sys.argv[1]} lacks the marker lines')
    i, j = page.index(BEGIN), page.index(END)
    print('\n'.join(page[:i + 1] + table(sys.stdin.read()) + page[j:]))


main()

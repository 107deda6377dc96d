#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that every lorebot function and every file of the tree a header
comment or a technical page names exists.

A comment that says "see foo_bar()" is a pointer: when foo_bar() is
renamed or removed the pointer goes stale and nothing else notices.  This
reads the comments of every header and the text of HACKING.md, README.md,
doc/technical/*.md and the Markdown sources of man pages (doc/*.md),
takes each name written as name() (or called, name(&o, cfg), in an
example) whose prefix
(up to the first '_') is the prefix of one of lorebot's modules (a file
of lib/, bot/, checkers/, ci/ or cmd/), and looks it up among the
functions the objects define (nm, static ones included), the macros and
static inline functions of the sources, and the identifiers of the
libraries' headers (a libgit2 git_*() is not lorebot's git_).  Each name
found nowhere is a line "file:line: name() is named here and defined
nowhere".  The same comments and pages point to files: each path of the
tree they name ("ci/kcheck.h", "doc/technical/daemon.md", the start of
some names, "ci/kbuild" for ci/kbuild*.c) must be one, else a line
"file:line: PATH is named here and is no file of the tree".  Then their
count on stderr.  Exit 0 when there is none, 1 when there is one, 2 when
there are no objects.

Usage: ci/check-refs.py [SRCDIR [OBJDIR]]
"""
import glob
import os
import re
import subprocess
import sys

LIB_HEADERS = ['/usr/include/git2', '/usr/include/git2.h',
               '/usr/include/json-c', '/usr/include/gmime-3.0',
               '/usr/include/sqlite3.h', '/usr/include/microhttpd.h',
               '/usr/include/pcre2.h', '/usr/include/x86_64-linux-gnu/curl']


def idents_of(paths):
    out = set()
    for p in paths:
        files = [p] if os.path.isfile(p) else \
            glob.glob(os.path.join(p, '**', '*.h'), recursive=True)
        for f in files:
            with open(f, errors='replace') as fh:
                out.update(re.findall(r'\b[A-Za-z_]\w*', fh.read()))
    return out


# a path of the tree, "ci/kcheck.h", not part of one outside it
# ("/var/lib/lorebot", "tools/lib/subcmd/...")
PATH = re.compile(r'(?<![\w/.$~-])((?:lib|bot|checkers|ci|cmd|tests|doc|config|'
                  r'templates|bench)/[\w.+/-]*[\w+])')


def path_known(src, path, tracked):
    """A file or directory of the tree, or the start of the names of some
    ("ci/kbuild" for ci/kbuild*.c, "tests/t0960"), a placeholder
    ("tests/t10xx", "tests/tNNNN"), or what the tree writes and ignores
    ("tests/artifacts")"""
    if os.path.exists(os.path.join(src, path)):
        return True
    if any(t.startswith(path) for t in tracked):
        return True
    if re.search(r'xx|NNNN', path):
        return True
    return any(subprocess.run(['git', '-C', src, 'check-ignore', '-q', p]).returncode == 0
               for p in (path, path + '/'))


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    obj = sys.argv[2] if len(sys.argv) > 2 else os.path.join(src, 'build')
    objs = glob.glob(os.path.join(obj, '*', '*.o')) + \
        glob.glob(os.path.join(obj, 'bot', '*', '*.o'))
    if not objs:
        print(f'check-refs: no objects in {obj} (make builds them)',
              file=sys.stderr)
        return 2
    known = set()
    nm = subprocess.run(['nm', '--defined-only'] + objs,
                        capture_output=True, text=True, check=True).stdout
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 3:
            known.add(f[2].split('.')[0])
    files = subprocess.run(['git', '-C', src, 'ls-files', '*.c', '*.h'],
                           capture_output=True, text=True,
                           check=True).stdout.split()
    prefixes = set()
    for f in files:
        text = open(os.path.join(src, f), errors='replace').read()
        known.update(re.findall(r'#\s*define\s+(\w+)', text))
        known.update(re.findall(r'static inline [^(;]*?\b(\w+)\(', text))
        # definitions at the start of a line: a static one may be inlined
        known.update(re.findall(r'^(?:static |const |struct |unsigned |enum )*'
                                r'[A-Za-z_][\w ]*?[ *](\w+)\(', text, re.M))
        if f.split('/')[0] in ('lib', 'bot', 'checkers', 'ci', 'cmd'):
            prefixes.add(os.path.basename(f).split('.')[0].split('-')[0])
    known |= idents_of(LIB_HEADERS)
    pages = [f for f in files if f.endswith('.h')]
    pages += ['HACKING.md', 'README.md'] + \
        sorted(os.path.relpath(p, src) for p in
               glob.glob(os.path.join(src, 'doc', 'technical', '*.md')) +
               glob.glob(os.path.join(src, 'doc', '*.md')))
    bad = 0
    # the files of the tree, for the paths the same comments and pages name
    tracked = subprocess.run(['git', '-C', src, 'ls-files'], capture_output=True,
                             text=True, check=True).stdout.split()
    for f in pages:
        text = open(os.path.join(src, f), errors='replace').read()
        spans = ([(m.start(), m.group(0)) for m in
                  re.finditer(r'/\*.*?\*/|//[^\n]*', text, re.S)]
                 if f.endswith('.h') else [(0, text)])
        for start, body in spans:
            # name() and a call in an example, name(&o, cfg)
            for m in re.finditer(r'\b(([a-z][a-z0-9]*)_[a-z0-9_]*[a-z0-9])\((?=[^()]*\))',
                                 body):
                name = m.group(1)
                if m.group(2) not in prefixes or name in known:
                    continue
                line = text.count('\n', 0, start + m.start()) + 1
                print(f'{f}:{line}: {name}() is named here and defined nowhere')
                bad += 1
            for m in PATH.finditer(body):
                path = m.group(1)
                if path_known(src, path, tracked):
                    continue
                line = text.count('\n', 0, start + m.start()) + 1
                print(f'{f}:{line}: {path} is named here and is no file of the tree')
                bad += 1
    print(f'check-refs: {bad} stale', file=sys.stderr)
    return 1 if bad else 0


sys.exit(main())

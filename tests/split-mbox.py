#!/usr/bin/env python3
# split-mbox.py OUTDIR ORDER MBOX...: write the messages of the mboxes as
# chunk files OUTDIR/0001.mbox... in an order (file, reverse, one, or
# shuffle:SEED, which also cuts random chunks of 1 to 7), bytes kept as
# they are.  Prints the chunk files, one a line.
import os
import random
import sys


def messages(path):
    data = open(path, 'rb').read()
    out, cur = [], []
    for line in data.splitlines(keepends=True):
        if line.startswith(b'From ') and (not cur or cur[-1] in (b'\n', b'\r\n')):
            if cur:
                out.append(b''.join(cur))
            cur = []
        cur.append(line)
    if cur:
        out.append(b''.join(cur))
    return out


def main():
    outdir, order, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    msgs = [m for p in paths for m in messages(p)]
    sizes = None
    if order == 'reverse':
        msgs.reverse()
    elif order.startswith('shuffle:'):
        rnd = random.Random(int(order.split(':')[1]))
        rnd.shuffle(msgs)
        sizes = []
        left = len(msgs)
        while left > 0:
            n = min(left, rnd.randint(1, 7))
            sizes.append(n)
            left -= n
    if sizes is None:
        sizes = [1] * len(msgs) if order in ('one', 'reverse') else [len(msgs)]
    os.makedirs(outdir, exist_ok=True)
    i = 0
    for k, n in enumerate(sizes):
        path = os.path.join(outdir, '%04d.mbox' % (k + 1))
        with open(path, 'wb') as f:
            for m in msgs[i:i + n]:
                f.write(m if m.endswith(b'\n\n') else m + b'\n')
        i += n
        print(path)


main()

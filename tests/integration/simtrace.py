#!/usr/bin/env python3
"""DOC: count the SMPs that changed something, from ibsim's packet trace.

With `Verbose 3` on its console ibsim prints every MAD it processes as a
hex dump after a "--- packet ---" line. This tool reads such a log (or a
slice of it) and counts the Set SMPs (method 0x02, classes 0x01 and 0x81)
per attribute: whoever sent them, SM or not, so it judges every SM alike.

Usage: simtrace.py FILE [--from-line N]
Prints "lft=L portinfo=P switchinfo=S other=O" (Sets of LinearForwarding-
Table, PortInfo, SwitchInfo, and any other attribute).
"""
import argparse
import sys

NAMES = {0x19: 'lft', 0x15: 'portinfo', 0x12: 'switchinfo'}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('file')
    ap.add_argument('--from-line', type=int, default=0)
    a = ap.parse_args()
    counts = {'lft': 0, 'portinfo': 0, 'switchinfo': 0, 'other': 0}
    lines = open(a.file, errors='replace').read().splitlines()[a.from_line:]
    for i, l in enumerate(lines):
        if l.strip() != '--- packet ---' or i + 2 >= len(lines):
            continue
        w0, w1 = lines[i + 1].split(), lines[i + 2].split()
        if len(w0) < 2 or not w1:
            continue
        try:
            mclass, method = int(w0[0][2:4], 16), int(w0[1][2:4], 16)
            attr = int(w1[0], 16)
        except ValueError:
            continue
        if mclass in (0x01, 0x81) and method == 0x02:
            counts[NAMES.get(attr, 'other')] += 1
    print(' '.join('%s=%d' % kv for kv in counts.items()))


if __name__ == '__main__':
    sys.exit(main())

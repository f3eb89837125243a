#!/usr/bin/env python3
"""DOC: count the SMPs that changed something, from ibsim's packet trace.

With `Verbose 3` on its console ibsim prints every MAD it processes as a
hex dump after a "--- packet ---" line. This tool reads such a log (or a
slice of it) and counts the Set SMPs (method 0x02, classes 0x01 and 0x81)
per attribute: whoever sent them, SM or not, so it judges every SM alike.

Usage: simtrace.py FILE [--from-line N]
Prints "lft=L portinfo=P switchinfo=S other=O mft=M rereg=R rereg_ports=D"
(Sets of LinearForwardingTable, PortInfo, SwitchInfo, and any other
attribute; of those others, MulticastForwardingTable Sets; PortInfo Sets
with ClientReregister, and to how many different ports they went, told
apart by their directed route or destination LID).
"""
import argparse
import sys

NAMES = {0x19: 'lft', 0x15: 'portinfo', 0x12: 'switchinfo'}
ATTR_MFT = 0x1B
SMP_DATA = 64          # the attribute data in an SMP, LID-routed or DR
PI_REREG = 51          # PortInfo byte: ClientReregister is its bit 7
DR_PATH = 128          # a DR SMP's InitialPath


def packet_bytes(lines, i):
    """The 256 bytes of the packet whose dump starts after line i."""
    out = bytearray()
    for l in lines[i + 1:i + 17]:
        for w in l.split():
            try:
                v = int(w, 16)
            except ValueError:
                return None
            out += bytes((v >> 8, v & 0xff))
    return bytes(out) if len(out) >= 256 else None


def rereg_dest(b):
    """Where a PortInfo Set with ClientReregister went, or None without it."""
    if b is None or not b[SMP_DATA + PI_REREG] & 0x80:
        return None
    if b[1] == 0x81:
        hops = b[7] & 0x3f   # ClassSpecific: HopPointer, HopCount
        return ('dr', bytes(b[DR_PATH + 1:DR_PATH + 1 + hops]))
    return ('tid', bytes(b[8:16]))   # LID-routed: each Set on its own


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('file')
    ap.add_argument('--from-line', type=int, default=0)
    a = ap.parse_args()
    counts = {'lft': 0, 'portinfo': 0, 'switchinfo': 0, 'other': 0, 'mft': 0, 'rereg': 0}
    dests = set()
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
        if mclass not in (0x01, 0x81) or method != 0x02:
            continue
        counts[NAMES.get(attr, 'other')] += 1
        counts['mft'] += attr == ATTR_MFT
        dest = rereg_dest(packet_bytes(lines, i)) if attr == 0x15 else None
        if dest is not None:
            counts['rereg'] += 1
            dests.add(dest)
    counts['rereg_ports'] = len(dests)
    print(' '.join('%s=%d' % kv for kv in counts.items()))


if __name__ == '__main__':
    sys.exit(main())

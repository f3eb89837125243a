#!/usr/bin/env python3
"""DOC: what SMPs did to the fabric, from ibsim's packet trace.

With `Verbose 3` on its console ibsim prints every MAD it processes as a
hex dump after a "--- packet ---" line, and where it arrived ("packet
(attr 0x15 mod 0x3) reached host L0003 port 3"). This tool reads such a
log (or a slice of it) and judges what the Set SMPs (method 0x02, classes
0x01 and 0x81) did, whoever sent them, SM or not, so it judges every SM
alike.

Usage: simtrace.py FILE [--from-line N]
  Prints "lft=L portinfo=P switchinfo=S other=O mft=M rereg=R rereg_ports=D"
  (Sets of LinearForwardingTable, PortInfo, SwitchInfo, and any other
  attribute; of those others, MulticastForwardingTable Sets; PortInfo Sets
  with ClientReregister, and to how many different ports they went, told
  apart by their directed route or destination LID).

Usage: simtrace.py FILE --pkey [--from-line N]
  Prints "pkey_get=G pkey_set=S get_ports=P early_gets=E": P_KeyTable
  (0x16) Gets and Sets in the trace, whoever sent them, how many different
  ports the Gets read (node and port number, a switch's from the
  modifier), and how many of the Gets came before the trace's last
  PortInfo Set (a bring-up ends with port state Sets, and ibsim processes
  one MAD at a time: those Gets were read during the bring-up).

Usage: simtrace.py FILE --order NETFILE [--from-line N]
  Checks the order of a bring-up: no port is Set ACTIVE before every LFT
  block Set and SwitchInfo Set that the trace shows for the switch it is
  on, or for the switch at the other end of its link, has been processed
  (ibsim processes one MAD at a time, so trace order is the order the
  switches saw); nor Set ARMED before then while the other end of its link
  is ACTIVE (a data packet from it would turn the port ACTIVE). Prints
  "tables=T state=S armed_early=A active_overlapped=O violations=V": A
  ARMED Sets before the first table Set (ports armed while routes were
  computed), O ACTIVE Sets before the last table Set of the whole trace
  (links up while other switches were still written); then each violation.
  Exits 1 on any violation.

Usage: simtrace.py FILE --pma-runs [--from-line N]
  Prints "pma=Q nodes=N longest=L": the PerfMgt Gets and Sets (class
  0x04) in the trace, the nodes they reached, and the longest run of them
  in a row to one node within the first half of them (ibsim processes one
  MAD at a time, in the order they came: queries sent to one node back to
  back arrive back to back, while early in a round every node still has
  queries to come).
"""
import argparse
import re
import sys

NAMES = {0x19: 'lft', 0x15: 'portinfo', 0x12: 'switchinfo'}
ATTR_MFT = 0x1B
SMP_DATA = 64          # the attribute data in an SMP, LID-routed or DR
PI_REREG = 51          # PortInfo byte: ClientReregister is its bit 7
DR_PATH = 128          # a DR SMP's InitialPath
REACHED = re.compile(r'packet \(attr 0x([0-9a-f]+) mod 0x([0-9a-f]+)\) reached host (.*) port (\d+)$')


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


def packets(lines):
    """(class, method, attr, modifier, mad bytes, target node, port it arrived on) per MAD."""
    pending = None
    for i, l in enumerate(lines):
        if l.strip() == '--- packet ---':
            pending = packet_bytes(lines, i)
            continue
        m = REACHED.search(l)
        if m and pending is not None:
            yield (pending[1], pending[3], int(m.group(1), 16), int(m.group(2), 16), pending,
                   m.group(3), int(m.group(4)))
            pending = None


def count(lines):
    counts = {'lft': 0, 'portinfo': 0, 'switchinfo': 0, 'other': 0, 'mft': 0, 'rereg': 0}
    dests = set()
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
    return 0


def pkey(lines):
    gets = sets = 0
    ports = set()
    get_at, last_pi_set = [], -1
    for i, (mclass, method, attr, mod, _mad, node, port) in enumerate(packets(lines)):
        if mclass not in (0x01, 0x81):
            continue
        if attr == 0x15 and method == 0x02:
            last_pi_set = i
        if attr != 0x16:
            continue
        if method == 0x01:
            gets += 1
            get_at.append(i)
            ports.add((node, (mod >> 16) & 0xFF or port))
        sets += method == 0x02
    early = sum(1 for i in get_at if i < last_pi_set)
    print('pkey_get=%d pkey_set=%d get_ports=%d early_gets=%d' % (gets, sets, len(ports), early))
    return 0


def pma_runs(lines):
    nodes = [node for mclass, method, _, _, _, node, _ in packets(lines)
             if mclass == 0x04 and method in (0x01, 0x02)]
    longest = run = 0
    for i, node in enumerate(nodes[:len(nodes) // 2]):
        run = run + 1 if i and node == nodes[i - 1] else 1
        longest = max(longest, run)
    print('pma=%d nodes=%d longest=%d' % (len(nodes), len(set(nodes)), longest))
    return 0


def read_net(path):
    """Switch names and links (node, port) -> (node, port) of a net file."""
    switches, peer, cur = set(), {}, None
    for l in open(path):
        m = re.match(r'^(Switch|Hca|Ca)\s+\d+\s+"([^"]+)"', l)
        if m:
            cur = m.group(2)
            if m.group(1) == 'Switch':
                switches.add(cur)
            continue
        m = re.match(r'^\s*\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', l)
        if m and cur:
            peer[(cur, int(m.group(1)))] = (m.group(2), int(m.group(3)))
    return switches, peer


def order(lines, netfile):
    switches, peer = read_net(netfile)
    table_sets = []     # (index, switch) of every LFT and SwitchInfo Set
    state_sets = []     # (index, node, port, state)
    for idx, (mclass, method, attr, mod, mad, node, port) in enumerate(packets(lines)):
        if mclass not in (0x01, 0x81) or method != 0x02:
            continue
        if attr in (0x19, 0x12):
            table_sets.append((idx, node))
        elif attr == 0x15:
            state = mad[SMP_DATA + 32] & 0x0F   # PortInfo PortState
            num = mod & 0xFF if node in switches else port
            if state in (3, 4):
                state_sets.append((idx, node, num, state))
    last = {}
    for idx, node in table_sets:
        last[node] = idx
    first = min(i for i, _ in table_sets) if table_sets else -1
    end = max(last.values()) if last else -1
    state = {}          # (node, port) -> state the trace set it to
    bad = []
    for idx, node, num, st in state_sets:
        other = peer.get((node, num))
        early = [sw for sw in [node] + ([other[0]] if other else [])
                 if sw in switches and last.get(sw, -1) > idx]
        if early and st == 4:
            bad.append('%s port %d set ACTIVE before the last table Set of %s'
                       % (node, num, early[0]))
        elif early and other and state.get(other) == 4:
            bad.append('%s port %d set ARMED, its peer ACTIVE, before the last table Set of %s'
                       % (node, num, early[0]))
        state[(node, num)] = st
    print('tables=%d state=%d armed_early=%d active_overlapped=%d violations=%d' % (
        len(table_sets), len(state_sets),
        sum(1 for s in state_sets if s[3] == 3 and s[0] < first),
        sum(1 for s in state_sets if s[3] == 4 and s[0] < end), len(bad)))
    for b in bad[:20]:
        print(b)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('file')
    ap.add_argument('--from-line', type=int, default=0)
    ap.add_argument('--order', metavar='NETFILE')
    ap.add_argument('--pkey', action='store_true')
    ap.add_argument('--pma-runs', action='store_true')
    a = ap.parse_args()
    lines = open(a.file, errors='replace').read().splitlines()[a.from_line:]
    if a.pma_runs:
        return pma_runs(lines)
    if a.pkey:
        return pkey(lines)
    if a.order:
        return order(lines, a.order)
    return count(lines)


if __name__ == '__main__':
    sys.exit(main())

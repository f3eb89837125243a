#!/usr/bin/env python3
"""DOC: the simulator's own view of the fabric, as the judge of an SM.

ibsim's console command `Dump` prints every node, every port's LID, LMC,
SM LID, state and link, and every switch's linear forwarding table. That
is the fabric's ground truth, read without a single MAD, so it is exact
even while the simulator drops MADs (loss tests) and can be sampled as
often as wanted. This tool parses the last complete Dump in a file (or
stdin) and checks what an SM must guarantee:

  dups         LIDs held by two ports at once (LMC ranges counted)
  inactive     linked ports that are not Active
  dead         LFT entries that point at a port whose link is down
  unreachable  (source CA port, destination LID) pairs whose packets do
               not arrive by following the switches' LFTs
  swunreach    with --switches: (switch, destination LID) pairs whose
               packets do not arrive following the LFTs from the switch (a
               switch's own replies and traps), out of swpairs
  (both within the part of the fabric that holds most CAs: a switch cut
  off from it can be neither reached nor programmed)
  smlid        LID-holding ports whose SM LID is not the expected one

Usage: simstate.py [--smlid N] [--pairs N] [--seed S] [--switches] [--json] [FILE]
       simstate.py --lid-of NAME [FILE]   the LID of a node (switch port 0,
                                          else its first port holding one)
       simstate.py --same-lids OTHER [FILE]  exit 1 (and list them) if any
                                          port's LID differs from OTHER's
       --blocks OUT also writes one line per (switch, 64-LID block) with a
       digest of its entries, so two dumps' files tell which blocks changed.
       simstate.py --detours N [FILE]   up to N lines "SWITCH SWLID HOST HOSTLID"
                                          for switches without a way down to the
                                          host's leaf: their LFT entry for the
                                          host has no route or goes down through
                                          another leaf (a switch's own packets)
Prints "dups=D inactive=I dead=X unreachable=U smlid=M ports=P lids=L"
(and details with -v). --pairs samples that many (source, destination)
pairs (0 = all). Exit status 0 always; callers compare the numbers.
"""

import argparse
import json
import random
import re
import signal
import sys

NODE_RE = re.compile(r'^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([^"]*)"\tnodeguid (\S+)')
FDB_RE = re.compile(r'^#\tForwarding table \d+-\d+:(.*)$')
ENTRY_RE = re.compile(r'\[(\d+)\]([0-9A-Fa-f]+)')
PORT_RE = re.compile(r'^(\S+)\t\[(\d+)\]\t(?:"([^"]*)"\[(\d+)\])?\t\s*(.*)$')
LIDF_RE = re.compile(r'lid (\d+) lmc (\d+) smlid (\d+)')
STATE_RE = re.compile(r'(\w+)/(\w+)\s*(#.*)?$')


def last_dump(lines):
    """The lines of the last Dump that ended with its '# dumped' line."""
    end = start = None
    for i in range(len(lines) - 1, -1, -1):
        if end is None and '#  dumped' in lines[i]:
            end = i
        elif end is not None and '# Net status' in lines[i]:
            start = i
            break
    if start is None:
        return []
    return lines[start:end]


class Node:
    def __init__(self, kind, nports, name, guid):
        self.kind = 'Switch' if kind == 'Switch' else 'Ca'
        self.nports = nports
        self.name = name
        self.guid = guid
        self.ports = {}   # num -> dict(peer, peer_port, lid, lmc, smlid, state)
        self.lft = {}     # lid -> port


def parse(lines):
    nodes = {}
    cur = None
    for ln in lines:
        m = NODE_RE.match(ln)
        if m:
            cur = Node(m.group(1), int(m.group(2)), m.group(3), m.group(4))
            nodes[cur.name] = cur
            continue
        if cur is None:
            continue
        m = FDB_RE.match(ln)
        if m:
            for lid, port in ENTRY_RE.findall(m.group(1)):
                cur.lft[int(lid)] = int(port, 16)
            continue
        m = PORT_RE.match(ln)
        if not m:
            continue
        rest = m.group(5)
        p = {'peer': m.group(3), 'peer_port': int(m.group(4) or 0)}
        lm = LIDF_RE.search(rest)
        if lm:
            p['lid'], p['lmc'], p['smlid'] = (int(x) for x in lm.groups())
        sm = STATE_RE.search(rest)
        p['state'] = sm.group(1) if sm else '?'
        if p['peer'] == 'Sma Port':
            p['peer'] = None
        cur.ports[int(m.group(2))] = p
    return nodes


def lid_holders(nodes):
    """LID -> list of (node, port) holding it, LMC ranges expanded."""
    held = {}
    for n in nodes.values():
        for num, p in n.ports.items():
            if 'lid' not in p or not p['lid']:
                continue
            if n.kind == 'Switch' and num != 0:
                continue
            for lid in range(p['lid'], p['lid'] + (1 << p['lmc'])):
                held.setdefault(lid, []).append((n.name, num))
    return held


def linked(p):
    return p.get('peer') is not None and p['state'] != 'Down'


def main_component(nodes):
    """Names of the nodes linked (over ports not Down) to the most CAs: a
    switch cut off from it cannot be reached, nor programmed, by anyone."""
    comp, best = {}, set()
    for start in nodes:
        if start in comp:
            continue
        todo, seen = [start], {start}
        while todo:
            n = nodes[todo.pop()]
            for p in n.ports.values():
                if linked(p) and p['peer'] in nodes and p['peer'] not in seen:
                    seen.add(p['peer'])
                    todo.append(p['peer'])
        for x in seen:
            comp[x] = seen
        if sum(nodes[x].kind == 'Ca' for x in seen) > sum(nodes[x].kind == 'Ca' for x in best):
            best = seen
    return best


def check_dead(nodes, details):
    dead = 0
    alive = main_component(nodes)
    for n in nodes.values():
        if n.kind != 'Switch' or n.name not in alive:
            continue
        for lid, port in n.lft.items():
            if port in (0, 0xFF) or port > n.nports:
                continue
            if not linked(n.ports.get(port, {})):
                dead += 1
                details.append('dead: %s lid %d -> port %d (down)' % (n.name, lid, port))
    return dead


def walk(nodes, start_sw, start_port, dlid, owner):
    """Follow the LFTs from the switch behind a CA port to dlid."""
    sw, seen = start_sw, set()
    for _ in range(64):
        if sw is None or sw.name in seen:
            return False
        seen.add(sw.name)
        port = sw.lft.get(dlid, 0xFF)
        if port == 0:
            return owner == (sw.name, 0)
        p = sw.ports.get(port)
        if port == 0xFF or p is None or not linked(p):
            return False
        if (p['peer'], p['peer_port']) == owner:
            return True
        nxt = nodes.get(p['peer'])
        if nxt is None or nxt.kind != 'Switch':
            return False
        sw = nxt
    return False


def check_reach(nodes, held, npairs, seed, details):
    srcs = []
    for n in nodes.values():
        if n.kind != 'Ca':
            continue
        for num, p in n.ports.items():
            if linked(p) and p.get('lid'):
                peer = nodes.get(p['peer'])
                if peer is not None and peer.kind == 'Switch':
                    srcs.append((n.name, num, peer))
    alive = main_component(nodes)
    srcs = [s for s in srcs if s[0] in alive]
    dsts = [(lid, hs[0]) for lid, hs in held.items() if len(hs) == 1 and hs[0][0] in alive]
    pairs = [(s, d) for s in srcs for d in dsts if (s[0], s[1]) != d[1]]
    if npairs and len(pairs) > npairs:
        pairs = random.Random(seed).sample(pairs, npairs)
    bad = 0
    for (name, num, sw), (lid, owner) in pairs:
        if not walk(nodes, sw, num, lid, owner):
            bad += 1
            if len(details) < 200:
                details.append('unreachable: %s/%d -> lid %d' % (name, num, lid))
    return bad, len(pairs)


def check_switch_reach(nodes, held, details):
    """Every (switch, LID) pair of the main part: (unreached, pairs)."""
    alive = main_component(nodes)
    dsts = [(lid, hs[0]) for lid, hs in held.items() if len(hs) == 1 and hs[0][0] in alive]
    bad = npairs = 0
    for sw in nodes.values():
        if sw.kind != 'Switch' or sw.name not in alive:
            continue
        for lid, owner in dsts:
            npairs += 1
            if not walk(nodes, sw, None, lid, owner):
                bad += 1
                if len(details) < 200:
                    details.append('switch unreached: %s -> lid %d' % (sw.name, lid))
    return bad, npairs


def has_cas(nodes, sw):
    return any(linked(p) and p['peer'] in nodes and nodes[p['peer']].kind == 'Ca'
               for p in sw.ports.values())


def first_hop_leaf(nodes, sw, lid):
    """The first switch with CAs on sw's path to lid (None: no route)."""
    for _ in range(64):
        p = sw.ports.get(sw.lft.get(lid, 0xFF))
        if p is None or not linked(p) or p['peer'] not in nodes:
            return None
        nxt = nodes[p['peer']]
        if nxt.kind != 'Switch':
            return sw
        if has_cas(nodes, nxt):
            return nxt
        sw = nxt
    return None


def detours(nodes, limit):
    """Switches (no CAs) whose way to a host does not go down to its leaf."""
    out = []
    for sw in sorted(nodes.values(), key=lambda x: x.name):
        if sw.kind != 'Switch' or has_cas(nodes, sw):
            continue
        for h in sorted(nodes.values(), key=lambda x: x.name):
            if h.kind != 'Ca' or len(out) >= limit:
                continue
            p = h.ports.get(1, {})
            if not linked(p) or not p.get('lid') or p['peer'] not in nodes:
                continue
            if first_hop_leaf(nodes, sw, p['lid']) is not nodes[p['peer']]:
                out.append('%s %d %s %d' % (sw.name, sw.ports[0]['lid'], h.name, p['lid']))
    return out


def summarize(nodes, smlid, npairs, seed, switches=False):
    details = []
    held = lid_holders(nodes)
    dups = sum(1 for hs in held.values() if len(hs) > 1)
    for lid, hs in sorted(held.items()):
        if len(hs) > 1:
            details.append('dup: lid %d held by %s' % (lid, hs))
    inactive = 0
    for n in nodes.values():
        for num, p in n.ports.items():
            if num and linked(p) and p['state'] != 'Active':
                inactive += 1
                details.append('inactive: %s/%d %s' % (n.name, num, p['state']))
    bad_sm = 0
    if smlid is not None:
        for n in nodes.values():
            for num, p in n.ports.items():
                if p.get('lid') and p.get('smlid') != smlid and (n.kind == 'Ca' or num == 0):
                    bad_sm += 1
    unreach, npairs_done = check_reach(nodes, held, npairs, seed, details)
    res = {'dups': dups, 'inactive': inactive, 'dead': check_dead(nodes, details),
           'unreachable': unreach, 'smlid': bad_sm, 'pairs': npairs_done,
           'ports': sum(len(n.ports) for n in nodes.values()), 'lids': len(held),
           'nodes': len(nodes)}
    if switches:
        res['swunreach'], res['swpairs'] = check_switch_reach(nodes, held, details)
    return res, details


def changed_lids(a, b):
    """Ports (node/port) whose LID differs between two parsed dumps."""
    out = []
    for name, n in a.items():
        m = b.get(name)
        for num, p in n.ports.items():
            q = m.ports.get(num, {}) if m else {}
            if p.get('lid') != q.get('lid'):
                out.append('%s/%d' % (name, num))
    return out


def write_blocks(nodes, path):
    with open(path, 'w') as f:
        for n in sorted(nodes.values(), key=lambda x: x.name):
            blocks = {}
            for lid, port in n.lft.items():
                blocks.setdefault(lid // 64, []).append((lid, port))
            for b in sorted(blocks):
                f.write('%s %d %x\n' % (n.name, b, hash(tuple(sorted(blocks[b]))) & 0xffffffff))


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser()
    ap.add_argument('file', nargs='?')
    ap.add_argument('--smlid', type=int)
    ap.add_argument('--pairs', type=int, default=0)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--json', action='store_true')
    ap.add_argument('-v', action='store_true')
    ap.add_argument('--lid-of')
    ap.add_argument('--blocks')
    ap.add_argument('--same-lids')
    ap.add_argument('--switches', action='store_true')
    ap.add_argument('--detours', type=int)
    a = ap.parse_args()
    f = open(a.file, errors='replace') if a.file else sys.stdin
    lines = last_dump(f.read().splitlines())
    nodes = parse(lines)
    if a.lid_of:
        n = nodes.get(a.lid_of)
        nums = [0] if n and n.kind == 'Switch' else sorted(n.ports) if n else []
        lids = [n.ports[k].get('lid', 0) for k in nums]
        print(([x for x in lids if x] or [0])[0])
        return
    if a.detours is not None:
        for ln in detours(nodes, a.detours):
            print(ln)
        return
    if a.same_lids:
        other = parse(last_dump(open(a.same_lids, errors='replace').read().splitlines()))
        moved = changed_lids(other, nodes)
        print('lid_changes=%d %s' % (len(moved), ' '.join(moved[:5])))
        sys.exit(1 if moved else 0)
    if a.blocks:
        write_blocks(nodes, a.blocks)
    res, details = summarize(nodes, a.smlid, a.pairs, a.seed, a.switches)
    if a.json:
        print(json.dumps(res))
    else:
        print(' '.join('%s=%d' % kv for kv in res.items()))
    if a.v:
        for d in details:
            print(d)


if __name__ == '__main__':
    main()

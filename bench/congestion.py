#!/usr/bin/env python3
"""DOC: route quality of dumped LFTs, for the reroute benchmark.

  congestion.py paths IBNET
        print a directed-route path to every switch, one a line, from the
        port ibnetdiscover ran at (to feed `ibroute -D`): after a failure
        an up/down routing may rightly leave a switch unreachable by LID
  congestion.py a2a IBNET ROUTES
        all-to-all load of the switch-to-switch links:
        "a2a_max=M a2a_bound=B ratio=R unrouted=U"
  congestion.py mustchange IBNET ROUTES NODE PORT
        how many LFT entries forwarded into the link at NODE[PORT]
        (either end): each must change once the link is gone

IBNET is ibnetdiscover output, ROUTES concatenated ibroute dumps (with or
without -n: entry lines start "0xLID PORT").

All-to-all: every CA port sends to every other CA port, following the LFTs
from the switch the source is attached to.  Routes from one source switch
to one destination LID share their path, so the walk runs once per (source
switch, destination LID) and counts with a multiplicity of the number of
CA ports on that switch.  a2a_max is the route count of the busiest
directed switch-to-switch link.  a2a_bound is a lower bound no routing can
beat: the routes that leave a switch (its CA ports times the CA ports
elsewhere) share its working switch links, so some link carries at least
their quotient, rounded up; the bound is the largest over all switches.
unrouted counts (source switch, LID) walks that do not end at the CA port
owning the LID (a missing entry, a dead end or a loop); it should be 0.
"""
import re
import sys

ORIGIN_RE = re.compile(r'^# Initiated from node ([0-9a-fA-F]+) port ([0-9a-fA-F]+)')
HDR_RE = re.compile(r'^(Switch|Ca)\s+(\d+)\s+"[SH]-([0-9a-fA-F]+)"\s*#\s*"([^"]*)"(.*)')
PORT_RE = re.compile(r'^\[(\d+)\](?:\([0-9a-fA-F]+\))?\s+"([SH])-([0-9a-fA-F]+)"\[(\d+)\]'
                     r'(?:\([0-9a-fA-F]+\))?\s*#?(.*)')
LID_RE = re.compile(r'\blid (\d+)')
MAX_HOPS = 64


class Fabric:
    """Switches of one ibnetdiscover dump.

    sw_lid {guid: lid}, names {guid: name}, sw_link {(guid, port): (guid,
    port) of the switch behind it}, ca_at {(guid, port): LID of the CA port
    behind it}, hosts {guid: number of CA ports attached}, origin (switch
    guid, path prefix): where the port ibnetdiscover ran at leads.
    """

    def __init__(self, path):
        self.sw_lid, self.names, self.sw_link, self.ca_at = {}, {}, {}, {}
        self.origin, origin_node, ca = None, None, None
        sw = None
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                m = ORIGIN_RE.match(line)
                if m:
                    origin_node = int(m.group(1), 16)
                m = HDR_RE.match(line)
                if m:
                    ca = int(m.group(3), 16) if m.group(1) == "Ca" else None
                elif ca is not None and ca == origin_node and not self.origin:
                    self._origin(line)
                sw = self._line(line, sw)
        self.hosts = {g: 0 for g in self.sw_lid}
        for (g, _), _lid in self.ca_at.items():
            self.hosts[g] += 1

    def _line(self, line, sw):
        m = HDR_RE.match(line)
        if m:
            if m.group(1) != "Switch":
                return None
            sw = int(m.group(3), 16)
            lm = LID_RE.search(m.group(5))
            self.sw_lid[sw] = int(lm.group(1)) if lm else 0
            self.names[sw] = m.group(4)
            return sw
        m = PORT_RE.match(line)
        if m and sw is not None:
            port, kind, peer = int(m.group(1)), m.group(2), int(m.group(3), 16)
            if kind == "S":
                self.sw_link[(sw, port)] = (peer, int(m.group(4)))
            else:
                lm = LID_RE.search(m.group(5))
                if lm:
                    self.ca_at[(sw, port)] = int(lm.group(1))
        return sw

    def _origin(self, line):
        # A multi-port CA would need the port GUID to pick its line; the
        # benchmark fabrics attach at single-port hosts, so take the first.
        m = PORT_RE.match(line)
        if m and m.group(2) == "S":
            self.origin = (int(m.group(3), 16), "0,%s" % m.group(1))

    def guid_of(self, name):
        for g, n in self.names.items():
            if n == name:
                return g
        return None


def read_routes(path):
    """Concatenated ibroute dumps: {switch guid: {lid: port}}."""
    lft, sw = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r'^Unicast lids .* guid (0x[0-9a-fA-F]+)', line)
            if m:
                sw = int(m.group(1), 16)
                lft.setdefault(sw, {})
                continue
            m = re.match(r'^(0x[0-9a-fA-F]+) (\d+)\b', line)
            if m and sw is not None:
                lft[sw][int(m.group(1), 16)] = int(m.group(2))
    return lft


def walk(fab, lft, src, dlid, load, weight):
    """Add weight to every switch link on the path; False if it breaks."""
    sw, used = src, []
    for _ in range(MAX_HOPS):
        port = lft.get(sw, {}).get(dlid)
        if port is None or port == 0:
            return False
        if (sw, port) in fab.ca_at:
            if fab.ca_at[(sw, port)] != dlid:
                return False
            for link in used:
                load[link] = load.get(link, 0) + weight
            return True
        nxt = fab.sw_link.get((sw, port))
        if nxt is None:
            return False
        used.append((sw, port))
        sw = nxt[0]
    return False


def bound(fab):
    total = sum(fab.hosts.values())
    best = 0
    for g, h in fab.hosts.items():
        links = sum(1 for (s, _p) in fab.sw_link if s == g)
        if h and links:
            best = max(best, -(-h * (total - h) // links))
    return best


def cmd_a2a(ibnet, routes):
    fab, lft = Fabric(ibnet), read_routes(routes)
    load, unrouted = {}, 0
    dests = sorted(set(fab.ca_at.values()))
    for src, h in fab.hosts.items():
        if not h:
            continue
        local = {lid for (s, _p), lid in fab.ca_at.items() if s == src}
        for dlid in dests:
            if dlid not in local and not walk(fab, lft, src, dlid, load, h):
                unrouted += 1
    worst, low = max(load.values(), default=0), bound(fab)
    ratio = "%.2f" % (worst / low) if low else "NA"
    print("a2a_max=%d a2a_bound=%d ratio=%s unrouted=%d" % (worst, low, ratio, unrouted))
    return 0


def cmd_mustchange(ibnet, routes, name, port):
    fab, lft = Fabric(ibnet), read_routes(routes)
    g = fab.guid_of(name)
    if g is None or (g, port) not in fab.sw_link:
        print("no switch link at %s[%d] in %s" % (name, port, ibnet), file=sys.stderr)
        return 1
    ends = {(g, port), fab.sw_link[(g, port)]}
    n = sum(1 for (s, p) in ends for out in lft.get(s, {}).values() if out == p)
    print(n)
    return 0


def cmd_paths(ibnet):
    fab = Fabric(ibnet)
    if not fab.origin:
        print("%s: cannot tell which switch ibnetdiscover ran behind" % ibnet,
              file=sys.stderr)
        return 1
    start, prefix = fab.origin
    path, queue = {start: prefix}, [start]
    for sw in queue:
        for (s, port), (peer, _pp) in sorted(fab.sw_link.items()):
            if s == sw and peer not in path:
                path[peer] = "%s,%d" % (path[sw], port)
                queue.append(peer)
    for g in sorted(path, key=lambda g: fab.sw_lid[g]):
        print(path[g])
    return 0 if len(path) == len(fab.sw_lid) else 1


def main(argv):
    if len(argv) == 3 and argv[1] == "paths":
        return cmd_paths(argv[2])
    if len(argv) == 4 and argv[1] == "a2a":
        return cmd_a2a(argv[2], argv[3])
    if len(argv) == 6 and argv[1] == "mustchange" and argv[5].isdigit():
        return cmd_mustchange(argv[2], argv[3], argv[4], int(argv[5]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""DOC: judge the multicast forwarding tables the switches hold.

Reads a fabric listing (ibnetdiscover output) and the MFTs of every switch
as `ibroute -M <lid>` prints them (concatenated), and checks one MLID the
way a packet sees it: from every member port, flood the tree (a switch
sends a packet out of every port of the MLID's mask but the one it came
in on) and require that

  - no switch is entered twice (the tree has no loop),
  - the packet reaches exactly the receiving members other than the
    sender, each once, and no other CA port,
  - every switch holding a bit for the MLID is reached from the members
    (no stray entries).

With --strict the tree must also be pruned: no bit toward a port without
a link, and no switch that holds bits but no member's port and leads to
only one other switch (a dead branch, left behind when a member went).

Members are node descriptions (their port 1) or DESC:PORT. Send-only
members (--send-only) must reach the others but receive nothing.
With no member at all, no switch may hold a bit for the MLID.
Exit 0 and a one-line summary when all holds, 1 with the reasons.

With --poll, --mft is not read: the command after --poll (e.g.
tests/agent/mftdump -l with the switch LIDs) prints dumps in rounds, each
ended by "=== round <epoch ms>", and every round is judged until one
passes (or --poll-timeout seconds went by); the summary then adds that
round's time (done_at_ms), so a caller can start the poll before the
change it times. The last round judged is kept in the --mft file. A
poll judges structurally (check_fast: matched bits, one tree, exactly the
receivers' ports), which is the same verdict in time linear in the tree.
"""

import argparse
import re
import subprocess
import sys
import time

import ibnet_norm

MFT_HDR = re.compile(r'^Multicast mlids \[.*\] of switch Lid \d+ guid (0x[0-9a-fA-F]+)')
MFT_ROW = re.compile(r'^(0x[0-9a-fA-F]{4})\s')


def parse_mfts(lines, mlid):
    """{switch guid: set of ports} for mlid, from ibroute -M output.

    ibroute prints the row's marks in the columns of the header's port
    numbers: column 12 + 2 * port."""
    masks, cur = {}, None
    for line in lines:
        m = MFT_HDR.match(line)
        if m:
            cur = int(m.group(1), 16)
            masks.setdefault(cur, set())
            continue
        m = MFT_ROW.match(line)
        if m and cur is not None and int(m.group(1), 16) == mlid:
            for col, ch in enumerate(line.rstrip("\n")):
                if ch == "x" and col >= 12 and col % 2 == 0:
                    masks[cur].add((col - 12) // 2)
    return masks


class Fabric:
    def __init__(self, nodes, conns):
        self.nodes = nodes
        self.peer = {}
        self.by_desc = {}
        self.by_guid = {}
        for name, n in nodes.items():
            self.by_desc.setdefault(n["desc"], name)
            if n["guid"] is not None:
                self.by_guid[n["guid"]] = name
        for a, pa, b, pb in conns:
            self.peer[(a, pa)] = (b, pb)
            self.peer[(b, pb)] = (a, pa)

    def is_switch(self, name):
        return self.nodes[name]["type"] == "Switch"

    def port(self, spec):
        desc, _, port = spec.partition(":")
        if desc not in self.by_desc:
            raise SystemExit("mftcheck: no node %r" % desc)
        return (self.by_desc[desc], int(port) if port else 1)


def flood(fab, masks, src, problems):
    """CA ports a packet from src reaches, and the switches it crosses."""
    got, seen = [], set()
    start = fab.peer.get(src)
    if start is None:
        problems.append("%s:%d has no link" % (fab.nodes[src[0]]["desc"], src[1]))
        return got, seen
    todo = [start]
    while todo:
        sw, inp = todo.pop()
        if sw in seen:
            problems.append("from %s: switch %s entered twice (loop)"
                            % (fab.nodes[src[0]]["desc"], fab.nodes[sw]["desc"]))
            continue
        seen.add(sw)
        for p in sorted(masks.get(fab.nodes[sw]["guid"], ())):
            if p == inp or p == 0:
                continue
            q = fab.peer.get((sw, p))
            if q is None:
                continue
            if fab.is_switch(q[0]):
                todo.append(q)
            else:
                got.append(q)
    return got, seen


def check(fab, masks, members, send_only):
    problems, touched = [], set()
    receivers = set(members) - set(send_only)
    for src in members:
        got, seen = flood(fab, masks, src, problems)
        touched |= seen
        want = receivers - {src}
        name = fab.nodes[src[0]]["desc"]
        if len(got) != len(set(got)):
            problems.append("from %s: a port gets the packet twice" % name)
        for p in sorted(set(got) - want):
            problems.append("from %s: %s:%d gets it but is no receiving member"
                            % (name, fab.nodes[p[0]]["desc"], p[1]))
        for p in sorted(want - set(got)):
            problems.append("from %s: member %s:%d not reached"
                            % (name, fab.nodes[p[0]]["desc"], p[1]))
    for guid, ports in sorted(masks.items()):
        sw = fab.by_guid.get(guid)
        if ports and sw not in touched:
            problems.append("switch %s holds ports %s for the MLID off the tree"
                            % (fab.nodes[sw]["desc"] if sw else hex(guid), sorted(ports)))
    return problems, touched


def pruned(fab, masks, members):
    """Problems of a tree that passes check() but keeps what it no longer
    needs: bits toward ports without a link, dead-end switches."""
    problems = []
    member_sw = {fab.peer[m][0] for m in members if m in fab.peer}
    for guid, ports in sorted(masks.items()):
        sw = fab.by_guid.get(guid)
        if not sw or not ports:
            continue
        isl = 0
        for p in sorted(ports):
            q = fab.peer.get((sw, p)) if p else None
            if p and q is None:
                problems.append("switch %s port %d has the bit but no link"
                                % (fab.nodes[sw]["desc"], p))
            elif q is not None and fab.is_switch(q[0]):
                isl += 1
        if sw not in member_sw and isl <= 1:
            problems.append("switch %s holds ports %s: a dead branch, no member behind it"
                            % (fab.nodes[sw]["desc"], sorted(ports)))
    return problems


def judge(fab, args, members, send_only, lines=None):
    if lines is None:
        with open(args.mft) as f:
            lines = f.readlines()
    masks = parse_mfts(lines, args.mlid)
    if args.poll:
        return check_fast(fab, masks, members + send_only, send_only)
    problems, touched = check(fab, masks, members + send_only, send_only)
    if args.strict:
        problems += pruned(fab, masks, members + send_only)
    return problems, touched


def poll(fab, args, members, send_only):
    """Judge rounds of dumps until one passes; the last verdict and the
    time of its round (epoch ms, or None)."""
    end = time.time() + args.poll_timeout
    proc = subprocess.Popen(args.poll, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    lines, verdict, at = [], (["no round dumped"], set()), None
    for line in proc.stdout:
        if not line.startswith("=== round "):
            lines.append(line)
            continue
        verdict, at = judge(fab, args, members, send_only, lines), int(line.split()[2])
        with open(args.mft, "w") as f:
            f.writelines(lines)
        lines = []
        if not verdict[0] or time.time() > end:
            break
    proc.kill()
    proc.wait()
    return verdict[0], verdict[1], at


def check_fast(fab, masks, members, send_only):
    """The same verdict without flooding from every member, for polling
    large trees: every inter-switch bit into a switch that holds bits for
    the MLID must be matched by the bit of the other end (else one side
    cannot send to the other; a bit into a switch holding none only loses
    the packet there, as the flood sees it too), the switches
    joined that way must form one tree (n - 1 links, connected) holding
    every member's switch, and the CA ports with bits must be exactly the
    receiving members. Flooding a tree from any member then reaches every
    other receiver once."""
    problems, edges, sws, cas = [], set(), set(), set()
    for guid, ports in masks.items():
        sw = fab.by_guid.get(guid)
        for p in ports:
            q = fab.peer.get((sw, p)) if sw and p else None
            if q is None:
                continue
            sws.add(sw)
            if not fab.is_switch(q[0]):
                cas.add(q)
            elif q[1] in masks.get(fab.nodes[q[0]]["guid"], ()):
                edges.add(tuple(sorted([(sw, p), q])))
            elif masks.get(fab.nodes[q[0]]["guid"]):
                problems.append("%s port %d has the bit, its peer %s port %d not"
                                % (fab.nodes[sw]["desc"], p, fab.nodes[q[0]]["desc"], q[1]))
    receivers = set(members) - set(send_only)
    for p in sorted(cas ^ receivers):
        problems.append("%s:%d %s" % (fab.nodes[p[0]]["desc"], p[1],
                                      "has a bit but is no receiving member" if p in cas
                                      else "is a member without a bit"))
    need = {fab.peer[m][0] for m in members if m in fab.peer}
    problems += tree_problems(fab, sws | need, edges)
    return problems, sws | need


def tree_problems(fab, sws, edges):
    adj = {s: set() for s in sws}
    for (a, _), (b, _) in edges:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    if not adj:
        return []
    seen, todo = set(), [next(iter(adj))]
    while todo:
        s = todo.pop()
        if s not in seen:
            seen.add(s)
            todo.extend(adj[s] - seen)
    out = []
    if len(seen) != len(adj):
        out.append("the tree is in %d pieces" % (len(adj) - len(seen) + 1))
    if len(edges) != len(adj) - 1:
        out.append("%d switches joined by %d links: not a tree" % (len(adj), len(edges)))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topo", required=True)
    ap.add_argument("--mft", required=True)
    ap.add_argument("--mlid", required=True, type=lambda s: int(s, 0))
    ap.add_argument("--members", default="")
    ap.add_argument("--send-only", default="")
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--poll-timeout", type=float, default=60)
    ap.add_argument("--poll", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    with open(args.topo) as f:
        nodes, conns = ibnet_norm.parse(f)
    fab = Fabric(nodes, conns)
    members = [fab.port(s) for s in args.members.split(",") if s]
    send_only = [fab.port(s) for s in args.send_only.split(",") if s]
    at = None
    if args.poll:
        problems, touched, at = poll(fab, args, members, send_only)
    else:
        problems, touched = judge(fab, args, members, send_only)
    if problems:
        for p in problems[:40]:
            print("mftcheck: " + p)
        if len(problems) > 40:
            print("mftcheck: ... %d more" % (len(problems) - 40))
        return 1
    print("ok: MLID 0x%04x, %d members (%d send-only), tree of %d switches%s"
          % (args.mlid, len(members) + len(send_only), len(send_only), len(touched),
             ", done_at_ms %d" % at if at else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

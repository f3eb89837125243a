#!/usr/bin/env python3
"""DOC: test-fabric generator for ibsim.

Prints an ibsim net file (the ibnetdiscover-like text format ibsim parses)
for a family of synthetic fabrics: 2- and 3-level fat trees, tori, random
regular-ish graphs, dragonflies and a fat tree of dual-ported HCAs.  Every
result is a pure function of the command line (randomness only through
--seed), so a test can regenerate the same fabric instead of committing
large files.

Names are fixed-width and typed by role: H00001 hosts, L0001 leaves,
M0001 mid (aggregation) switches, S0001 spines, X0001 other switches.
Hosts are written first, so a client started without SIM_HOST attaches at
H00001 (ibsim attaches to the first node of the file), and ibsim's GUIDs
follow file order: a CA's node GUID is 0x100000 plus the sum of (nports+1)
over the CAs before it, its port p has node GUID + p; the i-th switch
(from 0) gets 0x200000 + i for the node and all its ports.
"""

import argparse
import os
import random
import sys
from collections import deque


class Fabric:
    """Nodes with fixed port counts and point-to-point links between ports."""

    def __init__(self):
        self.nodes = {}       # name -> [kind, nports, role]
        self.order = []
        self.peer = {}        # (name, port) -> (name, port)

    def add(self, name, kind, nports, role):
        assert name not in self.nodes
        self.nodes[name] = [kind, nports, role]
        self.order.append(name)

    def link(self, a, pa, b, pb):
        assert (a, pa) not in self.peer and (b, pb) not in self.peer, (a, pa, b, pb)
        assert 1 <= pa <= self.nodes[a][1] and 1 <= pb <= self.nodes[b][1]
        self.peer[(a, pa)] = (b, pb)
        self.peer[(b, pb)] = (a, pa)

    def unlink(self, a, pa):
        b, pb = self.peer.pop((a, pa))
        del self.peer[(b, pb)]

    def remove_node(self, name):
        for port in range(1, self.nodes[name][1] + 1):
            if (name, port) in self.peer:
                self.unlink(name, port)
        del self.nodes[name]
        self.order.remove(name)

    def is_switch(self, name):
        return self.nodes[name][0] == "Switch"

    def links(self):
        """Each link once, as ((a, pa), (b, pb)) with (a, pa) < (b, pb)."""
        return sorted((k, v) for k, v in self.peer.items() if k < v)

    def switch_links(self):
        return [l for l in self.links()
                if self.is_switch(l[0][0]) and self.is_switch(l[1][0])]

    def ports_of(self, name):
        return [(p, self.peer[(name, p)]) for p in range(1, self.nodes[name][1] + 1)
                if (name, p) in self.peer]


def names(prefix, count, width):
    width = max(width, len(str(count)))
    return ["%s%0*d" % (prefix, width, i + 1) for i in range(count)]


def add_nodes(fab, nodes, kind, nports, role):
    for n in nodes:
        fab.add(n, kind, nports, role)
    return nodes


def host_counts(nleaves, per_leaf, uneven, rng):
    if not uneven:
        return [per_leaf] * nleaves
    return [rng.randint(1, per_leaf) for _ in range(nleaves)]


def build_ft2(args, rng):
    k = args.radix
    half = k // 2
    per_leaf = half if args.hosts_per_leaf is None else args.hosts_per_leaf
    if per_leaf > k - half:
        die("ft2: at most %d hosts per leaf for radix %d" % (k - half, k))
    counts = host_counts(k, per_leaf, args.uneven, rng)
    fab = Fabric()
    hosts = iter(add_nodes(fab, names("H", sum(counts), 5), "Hca", 1, "host"))
    leaves = add_nodes(fab, names("L", k, 4), "Switch", k, "leaf")
    spines = add_nodes(fab, names("S", half, 4), "Switch", k, "spine")
    for li, leaf in enumerate(leaves):
        for i in range(counts[li]):
            fab.link(leaf, i + 1, next(hosts), 1)
        for si, s in enumerate(spines):
            fab.link(leaf, k - half + si + 1, s, li + 1)
    return fab


def build_ft3(args, rng):
    k = args.radix
    half = k // 2
    counts = host_counts(k * half, half, args.uneven, rng)
    fab = Fabric()
    hosts = iter(add_nodes(fab, names("H", sum(counts), 5), "Hca", 1, "host"))
    leaves = add_nodes(fab, names("L", k * half, 4), "Switch", k, "leaf")
    mids = add_nodes(fab, names("M", k * half, 4), "Switch", k, "mid")
    spines = add_nodes(fab, names("S", half * half, 4), "Switch", k, "spine")
    for li, leaf in enumerate(leaves):
        for i in range(counts[li]):
            fab.link(leaf, i + 1, next(hosts), 1)
    for pod in range(k):
        for a in range(half):
            leaf = leaves[pod * half + a]
            for m in range(half):
                fab.link(leaf, half + m + 1, mids[pod * half + m], a + 1)
        for m in range(half):
            mid = mids[pod * half + m]
            for i in range(half):
                fab.link(mid, half + i + 1, spines[m * half + i], pod + 1)
    return fab


def build_multiport(args, rng):
    """ft2 whose HCAs have two ports, on leaves 2i and 2i+1."""
    k = args.radix
    half = k // 2
    fab = Fabric()
    hosts = add_nodes(fab, names("H", half * half, 5), "Hca", 2, "host")
    leaves = add_nodes(fab, names("L", k, 4), "Switch", k, "leaf")
    spines = add_nodes(fab, names("S", half, 4), "Switch", k, "spine")
    for hi, h in enumerate(hosts):
        pair, slot = divmod(hi, half)
        fab.link(leaves[2 * pair], slot + 1, h, 1)
        fab.link(leaves[2 * pair + 1], slot + 1, h, 2)
    for li, leaf in enumerate(leaves):
        for si, s in enumerate(spines):
            fab.link(leaf, half + si + 1, s, li + 1)
    return fab


def grid_fabric(nsw, per_switch, nports):
    """Hosts then switches; host ports are 1..per_switch on every switch."""
    if nports > 254:
        die("a switch would need %d ports (at most 254)" % nports)
    fab = Fabric()
    hosts = add_nodes(fab, names("H", nsw * per_switch, 5), "Hca", 1, "host")
    sws = add_nodes(fab, names("X", nsw, 4), "Switch", nports,
                    "leaf" if per_switch else "core")
    for i, h in enumerate(hosts):
        fab.link(sws[i // per_switch], i % per_switch + 1, h, 1)
    return fab, sws


def build_torus(args, rng):
    dims = list(args.dims)
    if any(d < 1 for d in dims):
        die("torus: dimensions must be >= 1")
    total = 1
    for d in dims:
        total *= d
    h = args.hosts
    fab, sws = grid_fabric(total, h, h + 2 * len(dims))

    def index(coord):
        i = 0
        for c, d in zip(coord, dims):
            i = i * d + c
        return i

    for i in range(total):
        coord, rest = [], i
        for d in reversed(dims):
            coord.insert(0, rest % d)
            rest //= d
        for di, d in enumerate(dims):
            # Port h+2di+1 goes "up" this dimension, h+2di+2 "down".  A ring
            # of two would double the link; keep it single (a mesh edge).
            if d == 1 or (d == 2 and coord[di] == 1):
                continue
            nxt = list(coord)
            nxt[di] = (coord[di] + 1) % d
            fab.link(sws[i], h + 2 * di + 1, sws[index(nxt)], h + 2 * di + 2)
    return fab


def build_random(args, rng):
    n, deg, h = args.nsw, args.degree, args.hosts_per_switch
    if deg < 2 or n < 2 or deg >= n:
        die("random: need 2 <= DEGREE < NSW")
    fab, sws = grid_fabric(n, h, h + deg)
    used = [0] * n
    adj = [set() for _ in range(n)]

    def connect(a, b):
        fab.link(sws[a], h + used[a] + 1, sws[b], h + used[b] + 1)
        used[a] += 1
        used[b] += 1
        adj[a].add(b)
        adj[b].add(a)

    # A random spanning tree first, so the fabric is always connected.
    perm = list(range(n))
    rng.shuffle(perm)
    for i in range(1, n):
        free = [perm[j] for j in range(i) if used[perm[j]] < deg]
        connect(perm[i], rng.choice(free))
    for _ in range(20 * n * deg):
        open_ = [i for i in range(n) if used[i] < deg]
        if len(open_) < 2:
            break
        a, b = rng.sample(open_, 2)
        if b not in adj[a]:
            connect(a, b)
    return fab


def build_dragonfly(args, rng):
    a, p, hg, g = args.a, args.p, args.h, args.g
    nports = p + (a - 1) + hg
    fab, sws = grid_fabric(a * g, p, nports)
    for grp in range(g):
        for i in range(a):
            for j in range(i + 1, a):
                # Local port p+1+x on switch i leads to the x-th other member.
                fab.link(sws[grp * a + i], p + j, sws[grp * a + j], p + i + 1)
    slots = [[(s, gl) for s in range(a) for gl in range(hg)] for _ in range(g)]
    pairs = [(x, y) for x in range(g) for y in range(x + 1, g)]
    progress = True
    while progress:
        progress = False
        for x, y in pairs:
            if slots[x] and slots[y]:
                sx, gx = slots[x].pop(0)
                sy, gy = slots[y].pop(0)
                fab.link(sws[x * a + sx], p + a + gx, sws[y * a + sy], p + a + gy)
                progress = True
    return fab


def connected(fab):
    """True if every node is reachable from the first one."""
    if not fab.order:
        return True
    seen, todo = {fab.order[0]}, deque([fab.order[0]])
    while todo:
        n = todo.popleft()
        for _, (m, _) in fab.ports_of(n):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return len(seen) == len(fab.nodes)


def remove_links(fab, args, rng):
    cand = fab.switch_links()
    if args.links == "leaf-spine":
        cand = [l for l in cand
                if "leaf" in (fab.nodes[l[0][0]][2], fab.nodes[l[1][0]][2])]
    want = int(round(len(cand) * args.remove_links / 100.0))
    rng.shuffle(cand)
    removed = 0
    for (a, pa), (b, pb) in cand:
        if removed == want:
            break
        fab.unlink(a, pa)
        if args.keep_connected and not connected(fab):
            fab.link(a, pa, b, pb)
            continue
        removed += 1
    if removed < want:
        warn("removed only %d of %d links (keeping the fabric connected)"
             % (removed, want))


def remove_switches(fab, args, rng):
    """Remove switches that carry no hosts (spines, mids) when there are any."""
    sws = [n for n in fab.order if fab.is_switch(n)]
    core = [n for n in sws
            if not any(not fab.is_switch(m) for _, (m, _) in fab.ports_of(n))]
    cand = core if core else sws
    if args.remove_switches > len(cand):
        die("cannot remove %d of %d candidate switches"
            % (args.remove_switches, len(cand)))
    for s in rng.sample(cand, args.remove_switches):
        fab.remove_node(s)
    for n in list(fab.order):
        if not fab.is_switch(n) and not fab.ports_of(n):
            fab.remove_node(n)


def make_parallel(fab, mult):
    """Repeat each switch-switch link `mult` times, renumbering ports."""
    old = {n: fab.ports_of(n) for n in fab.order}
    sw_links = set(fab.switch_links())
    newport = {}
    nports = {}
    for n in fab.order:
        nxt = 1
        for p, _ in old[n]:
            copies = 1
            for l in (((n, p), fab.peer[(n, p)]), (fab.peer[(n, p)], (n, p))):
                if l in sw_links:
                    copies = mult
            newport[(n, p)] = list(range(nxt, nxt + copies))
            nxt += copies
        nports[n] = max(fab.nodes[n][1], nxt - 1)
    links = fab.links()
    fab.peer = {}
    for n in fab.order:
        fab.nodes[n][1] = nports[n]
    for (a, pa), (b, pb) in links:
        for x, y in zip(newport[(a, pa)], newport[(b, pb)]):
            fab.link(a, x, b, y)
    if max(nports.values()) > 254:
        die("--parallel: a node would need more than 254 ports")


def render(fab, out, header):
    for line in header:
        out.write("# %s\n" % line)
    out.write("\n")
    for n in fab.order:
        kind, nports, _ = fab.nodes[n]
        out.write('%s\t%d "%s"\n' % (kind, nports, n))
        for p, (m, q) in fab.ports_of(n):
            out.write('[%d]\t"%s"[%d]\n' % (p, m, q))
        out.write("\n")


def die(msg):
    sys.stderr.write("gen_topo: %s\n" % msg)
    sys.exit(2)


def warn(msg):
    sys.stderr.write("gen_topo: warning: %s\n" % msg)


def even_radix(text):
    v = int(text)
    if v < 4 or v % 2 or v > 254:
        raise argparse.ArgumentTypeError("radix must be even, 4..254")
    return v


def parse_args(argv):
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--seed", type=int, default=1)
    common.add_argument("--remove-links", type=float, default=0, metavar="PCT",
                        help="remove PCT%% of switch-switch links")
    common.add_argument("--links", choices=["all", "leaf-spine"], default="all",
                        help="which links --remove-links may take: all, or"
                        " only those with a leaf at one end")
    common.add_argument("--keep-connected", action="store_true",
                        help="never remove a link that disconnects the fabric")
    common.add_argument("--remove-switches", type=int, default=0, metavar="N")
    common.add_argument("--parallel", type=int, default=1, metavar="N",
                        help="each switch-switch link N times")
    common.add_argument("--uneven", action="store_true",
                        help="fat trees: seeded 1..N hosts per leaf")
    ap = argparse.ArgumentParser(description="Generate an ibsim net file.")
    sub = ap.add_subparsers(dest="kind", required=True)
    p = sub.add_parser("ft2", parents=[common])
    p.add_argument("radix", type=even_radix)
    p.add_argument("--hosts-per-leaf", type=int)
    p = sub.add_parser("ft3", parents=[common])
    p.add_argument("radix", type=even_radix)
    p = sub.add_parser("multiport", parents=[common])
    p.add_argument("radix", type=even_radix)
    p = sub.add_parser("torus", parents=[common])
    p.add_argument("dims", type=int, nargs="+", metavar="DIM")
    p.add_argument("--hosts", type=int, default=1, help="hosts per switch")
    p = sub.add_parser("random", parents=[common])
    p.add_argument("nsw", type=int)
    p.add_argument("degree", type=int)
    p.add_argument("--hosts-per-switch", type=int, default=1)
    p = sub.add_parser("dragonfly", parents=[common])
    for n in ("a", "p", "h", "g"):
        p.add_argument(n, type=int)
    args = ap.parse_args(argv)
    counts = [getattr(args, n, 1) for n in
              ("hosts_per_leaf", "hosts", "hosts_per_switch", "remove_switches")]
    if any(c is not None and c < 0 for c in counts):
        ap.error("counts must not be negative")
    if args.uneven and args.kind not in ("ft2", "ft3"):
        ap.error("--uneven applies to ft2 and ft3 only")
    if args.kind == "dragonfly" and min(args.a, args.p, args.h, args.g) < 1:
        ap.error("dragonfly: A P H G must be >= 1")
    if args.kind == "torus" and not 1 <= len(args.dims) <= 3:
        ap.error("torus takes 1 to 3 dimensions")
    if args.parallel < 1 or not 0 <= args.remove_links <= 100:
        ap.error("bad --parallel or --remove-links")
    return args


BUILDERS = {"ft2": build_ft2, "ft3": build_ft3, "multiport": build_multiport,
            "torus": build_torus, "random": build_random,
            "dragonfly": build_dragonfly}


def main(argv):
    args = parse_args(argv)
    # One stream per purpose so that, e.g., --uneven does not change which
    # links --remove-links picks.
    fab = BUILDERS[args.kind](args, random.Random("build%d" % args.seed))
    if args.remove_switches:
        remove_switches(fab, args, random.Random("sw%d" % args.seed))
    if args.remove_links:
        remove_links(fab, args, random.Random("links%d" % args.seed))
    if args.parallel > 1:
        make_parallel(fab, args.parallel)
    nsw = sum(1 for n in fab.order if fab.is_switch(n))
    header = ["generated by gen_topo.py " + " ".join(argv),
              "switches %d hcas %d links %d"
              % (nsw, len(fab.order) - nsw, len(fab.links()))]
    try:
        render(fab, sys.stdout, header)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (e.g. `| head`) has seen enough; that is not an error.
        # Point stdout at /dev/null so the exit-time flush stays quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

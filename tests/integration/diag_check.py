#!/usr/bin/env python3
"""DOC: checks on infiniband-diags output, for the subnet-up tests.

  diag_check.py links IBLINKINFO      every linked port Active/LinkUp
  diag_check.py lids IBNETDISCOVER    every CA port and switch has a LID
  diag_check.py pairs IBNETDISCOVER N SEED
                                      print "slid dlid" pairs for ibtracert
                                      --ports-file: all CA port pairs when
                                      there are at most N, else N sampled
  diag_check.py lftdiff ROUTES_A ROUTES_B
                                      number of (switch, LID) entries that
                                      differ between two ibroute dumps
                                      (switches present in both)
  diag_check.py traces IBNETDISCOVER PAIRS IBTRACERT
                                      every traced pair ends at the CA port
                                      that owns the destination LID

Prints one summary line; exits 1 with the offending lines on failure.
"""
import random
import re
import sys

PORT_RE = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([^"]+)"\[(\d+)\]')
HDR_RE = re.compile(r'^(Switch|Ca)\s+(\d+)\s+"([^"]+)"')
LID_RE = re.compile(r'\blid (\d+)')


def parse_ibnet(path):
    """Returns ({port_guid: lid} for CA ports, {switch name: lid}, errors)."""
    ca_ports, switches, errs = {}, {}, []
    kind = name = None
    for line in open(path):
        line = line.rstrip("\n")
        m = HDR_RE.match(line)
        if m:
            kind, name = m.group(1), m.group(3)
            if kind == "Switch":
                lm = re.search(r'base port 0 lid (\d+)', line) or \
                    re.search(r'port 0 lid (\d+)', line)
                switches[name] = int(lm.group(1)) if lm else 0
            continue
        m = PORT_RE.match(line)
        if m and kind == "Ca":
            lm = LID_RE.search(line.split("#", 1)[1] if "#" in line else "")
            ca_ports[int(m.group(2), 16)] = int(lm.group(1)) if lm else 0
    for g, lid in ca_ports.items():
        if lid == 0:
            errs.append("CA port 0x%x has no LID" % g)
    for n, lid in switches.items():
        if lid == 0:
            errs.append("switch %s has no LID" % n)
    return ca_ports, switches, errs


def cmd_links(path):
    bad, linked = [], 0
    for line in open(path):
        if ")==>" not in line:
            continue
        left, right = line.split(")==>", 1)
        if not re.search(r'\d+\s+\d+\[', right):
            continue            # port without a peer
        linked += 1
        if "Active/" not in left or "LinkUp" not in left:
            bad.append(line.rstrip())
    if bad or linked == 0:
        print("%d of %d linked ports not Active" % (len(bad), linked))
        print("\n".join(bad[:20]))
        return 1
    print("all %d linked port lines Active/LinkUp" % linked)
    return 0


def cmd_lids(path):
    cas, sws, errs = parse_ibnet(path)
    if errs or not cas:
        print("%d ports without a LID" % len(errs))
        print("\n".join(errs[:20]))
        return 1
    lids = list(cas.values()) + list(sws.values())
    if len(set(lids)) != len(lids):
        print("duplicate LIDs in ibnetdiscover output")
        return 1
    print("every one of %d CA ports and %d switches has a unique LID" % (len(cas), len(sws)))
    return 0


def cmd_pairs(path, limit, seed):
    cas, _, _ = parse_ibnet(path)
    lids = sorted(cas.values())
    n = len(lids)
    if n * (n - 1) <= limit:
        pairs = [(a, b) for a in lids for b in lids if a != b]
    else:
        rng = random.Random(seed)
        pairs = set()
        while len(pairs) < limit:
            a, b = rng.sample(lids, 2)
            pairs.add((a, b))
        pairs = sorted(pairs)
    for a, b in pairs:
        print(a, b)
    return 0


def cmd_traces(ibnet, pairs_path, trace_path):
    cas, _, _ = parse_ibnet(ibnet)
    owner = {lid: g for g, lid in cas.items()}
    pairs = [tuple(map(int, l.split())) for l in open(pairs_path) if l.strip()]
    ends = []
    last = None
    for line in open(trace_path):
        m = re.search(r'-> ca port \{0x([0-9a-fA-F]+)\}', line)
        if m:
            last = int(m.group(1), 16)
        if line.startswith("To "):
            ends.append(last)
            last = None
    bad = []
    if len(ends) != len(pairs):
        bad.append("%d pairs asked, %d traces completed" % (len(pairs), len(ends)))
    for (s, d), end in zip(pairs, ends):
        if end != owner.get(d):
            bad.append("%d -> %d ended at %s, expected 0x%x" %
                       (s, d, hex(end) if end else None, owner.get(d, 0)))
    if bad:
        print("%d bad traces" % len(bad))
        print("\n".join(bad[:20]))
        return 1
    print("%d of %d traced pairs reach the right CA port" % (len(ends), len(pairs)))
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "links":
        return cmd_links(argv[2])
    if len(argv) >= 3 and argv[1] == "lids":
        return cmd_lids(argv[2])
    if len(argv) >= 5 and argv[1] == "pairs":
        return cmd_pairs(argv[2], int(argv[3]), int(argv[4]))
    if len(argv) >= 4 and argv[1] == "lftdiff":
        return cmd_lftdiff(argv[2], argv[3])
    if len(argv) >= 5 and argv[1] == "traces":
        return cmd_traces(argv[2], argv[3], argv[4])
    print(__doc__)
    return 2



def read_routes(path):
    """ibroute dumps, concatenated: {(switch guid, lid): port}."""
    routes, sw = {}, None
    for line in open(path):
        m = re.match(r'^Unicast lids .* guid (0x[0-9a-fA-F]+)', line)
        if m:
            sw = int(m.group(1), 16)
            continue
        m = re.match(r'^(0x[0-9a-fA-F]+) (\d+) :', line)
        if m and sw is not None:
            routes[(sw, int(m.group(1), 16))] = int(m.group(2))
    return routes


def cmd_lftdiff(a, b):
    """Entries that differ, on the switches present in both dumps."""
    ra, rb = read_routes(a), read_routes(b)
    both = {k[0] for k in ra} & {k[0] for k in rb}
    keys = {k for k in set(ra) | set(rb) if k[0] in both}
    changed = sum(1 for k in keys if ra.get(k) != rb.get(k))
    print(changed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

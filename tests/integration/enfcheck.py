#!/usr/bin/env python3
"""DOC: judge the partition enforcement bits an SM sent, from ibsim's trace.

ibsim (0.10 and 0.12) answers a PortInfo Set without keeping
PartitionEnforcementInbound/Outbound (PortInfo byte 43, 0x08/0x04): its
update_portinfo() rebuilds the byte from OperationalVLs and the template's
zero low bits, so `smpquery portinfo` reads them as 0 whatever the SM did.
What can be judged is what the SM asked for: with `Verbose 3` ibsim prints
every MAD it receives as a hex dump after "--- packet ---", then the
handler's "do_portinfo: in node <guid> ...: port ... (<num>(...))" line.

Reads such a log and an ibnetdiscover listing, and for every switch
external port the listing shows collects the enforcement bits of byte 43
of the PortInfo Sets (SMP classes 0x01/0x81, method 0x02, attribute
0x0015) sent to it. With --expect both|in|out, every switch port facing a
CA must have received a Set with exactly those bits; with --expect off no
Set may carry either bit. No Set to an inter-switch port may carry either
bit. (A later Set of the same port without the bits is no clearing: the
SM builds it from the PortInfo ibsim answered, which lacks them.)

Usage: enfcheck.py --topo DISC --trace IBSIM_LOG --expect both|in|out|off
Exit 0 and a one-line summary when all holds, 1 with the reasons.
"""

import argparse
import re
import sys

import ibnet_norm

PI_RE = re.compile(r'do_portinfo: in node ([0-9a-f]+) port [0-9a-f]+: port [0-9a-f]+ \((\d+)\(')
BITS = {"both": 0x0C, "in": 0x08, "out": 0x04, "off": 0}


def portinfo_sets(lines):
    """[(node guid, port, byte 43)] of the PortInfo Sets, in order."""
    out, cur, i = [], None, 0
    while i < len(lines):
        if lines[i].strip() == "--- packet ---":
            try:
                b = bytes.fromhex("".join(" ".join(lines[i + 1:i + 17]).split()))
            except ValueError:
                b = b""
            cur = None
            if len(b) >= 128 and b[1] in (0x01, 0x81) and b[3] == 0x02 and \
                    b[16:18] == b"\x00\x15":
                cur = b[64 + 43]
            i += 17
            continue
        m = PI_RE.search(lines[i])
        if m and cur is not None:
            out.append((int(m.group(1), 16), int(m.group(2)), cur))
            cur = None
        i += 1
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topo", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--expect", required=True, choices=sorted(BITS))
    a = ap.parse_args(argv)
    with open(a.topo) as f:
        nodes, conns = ibnet_norm.parse(f)
    kind = {}
    for n, p, r, _ in conns:
        if nodes[n]["type"] == "Switch" and r in nodes:
            kind[(nodes[n]["guid"], p)] = "ca" if nodes[r]["type"] != "Switch" else "isl"
    sent = {}
    for guid, port, b in portinfo_sets(open(a.trace, errors="replace").read().splitlines()):
        if (guid, port) in kind:
            sent.setdefault((guid, port), set()).add(b & 0x0C)
    want, problems = BITS[a.expect], []
    for key, k in sorted(kind.items()):
        got = sent.get(key, set()) - {0}
        where = "switch %016x port %d (%s)" % (key[0], key[1], "faces a CA" if k == "ca" else "ISL")
        if k == "isl" or want == 0:
            if got:
                problems.append("%s: Set with enforcement bits %s" % (where, sorted(got)))
        elif got != {want}:
            problems.append("%s: Sets with bits %s, want %#x" % (where, sorted(got), want))
    if problems:
        for p in problems[:40]:
            print("enfcheck: " + p)
        return 1
    ca = sum(1 for k in kind.values() if k == "ca")
    print("%d CA-facing and %d inter-switch ports: %d Sets with bits %#x, none on an ISL" %
          (ca, len(kind) - ca, sum(1 for k, v in sent.items() if v - {0} and kind[k] == "ca"),
           want))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""DOC: canonical form of a fabric listing, for diffing two of them.

Reads ibnetdiscover output (or anything in its format, such as an ibsim net
file or our own dump) and prints one sorted line per node and per link:

    NODE <type> <id> <nports>
    LINK <idA>:<portA> <idB>:<portB>      (A:port < B:port)
    LID <portguid> <lid>                  (with --lids; switches: port 0)

<id> is the node GUID (0x%016x) by default, or the node description with
--by-desc, which lets a generated net file (no GUIDs) be compared with what
ibnetdiscover found on the simulator.  A link is listed once even when it
appears from both ends; --strict makes a link seen from only one end while
both nodes are present an error (exit 1), as is malformed input.
"""

import argparse
import re
import sys

NODE_RE = re.compile(r'^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([^"]+)"(.*)$')
PORT_RE = re.compile(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s*"([^"]+)"\[(\d+)\]'
                     r'(?:\(([0-9a-fA-F]+)\))?(.*)$')
GUID_RE = re.compile(r'^(?:switchguid|caguid|rtguid)=(0x[0-9a-fA-F]+)')
DESC_RE = re.compile(r'#\s*"([^"]*)"')
SW_LID_RE = re.compile(r'port 0 lid (\d+)')
CA_LID_RE = re.compile(r'#\s*lid (\d+)')


class ParseError(Exception):
    pass


def id_from_name(name):
    """ibnetdiscover names nodes S-/H-/R-<16 hex digits>."""
    m = re.match(r'^[SHR]-([0-9a-fA-F]{16})$', name)
    return int(m.group(1), 16) if m else None


def parse(lines):
    """Return nodes {name: dict} and port records [(name, port, rname, rport)]."""
    nodes, conns, pending_guid, cur = {}, [], None, None
    for num, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        m = GUID_RE.match(line)
        if m:
            pending_guid = int(m.group(1), 16)
            continue
        m = NODE_RE.match(line)
        if m:
            kind, nports, name, rest = m.groups()
            guid = pending_guid if pending_guid is not None else id_from_name(name)
            pending_guid = None
            d = DESC_RE.search(rest)
            lid = SW_LID_RE.search(rest)
            cur = name
            if name in nodes:
                raise ParseError("line %d: node %s listed twice" % (num, name))
            nodes[name] = {"type": "Ca" if kind == "Hca" else kind,
                           "nports": int(nports), "guid": guid,
                           "desc": d.group(1) if d else name,
                           "lids": {}}
            if lid and kind == "Switch":
                nodes[name]["lids"][0] = (guid, int(lid.group(1)))
            continue
        m = PORT_RE.match(line)
        if m:
            if cur is None:
                raise ParseError("line %d: port line outside a node" % num)
            port, pguid, rname, rport, _, rest = m.groups()
            port, rport = int(port), int(rport)
            if not 1 <= port <= nodes[cur]["nports"]:
                raise ParseError("line %d: port %d out of range" % (num, port))
            conns.append((cur, port, rname, rport))
            lid = CA_LID_RE.search(rest)
            if nodes[cur]["type"] != "Switch" and lid:
                g = int(pguid, 16) if pguid else None
                nodes[cur]["lids"][port] = (g, int(lid.group(1)))
            continue
        if line.strip() == "" or line.lstrip().startswith("#"):
            cur = None if line.strip() == "" else cur
            continue
        if re.match(r'^(vendid|devid|sysimgguid)=', line):
            continue
        raise ParseError("line %d: cannot parse: %s" % (num, line))
    return nodes, conns


def node_key(nodes, name, by_desc):
    n = nodes.get(name)
    if by_desc:
        return n["desc"] if n else name
    guid = n["guid"] if n else id_from_name(name)
    if guid is None:
        raise ParseError("no GUID known for node %s" % name)
    return "0x%016x" % guid


def canon(nodes, conns, by_desc, strict, want_lids):
    out, seen = set(), {}
    for name, n in nodes.items():
        out.add("NODE %s %s %d" % (n["type"], node_key(nodes, name, by_desc),
                                   n["nports"]))
        for port, (g, lid) in n["lids"].items() if want_lids else ():
            out.add("LID %s %d" % ("0x%016x" % g if g is not None else
                                   "%s:%d" % (node_key(nodes, name, by_desc),
                                              port), lid))
    for name, port, rname, rport in conns:
        a = (node_key(nodes, name, by_desc), port)
        b = (node_key(nodes, rname, by_desc), rport)
        lo, hi = min(a, b), max(a, b)
        seen.setdefault((lo, hi), set()).add(a)
        out.add("LINK %s:%d %s:%d" % (lo[0], lo[1], hi[0], hi[1]))
    if strict:
        check_symmetric(nodes, conns, seen, by_desc)
    return sorted(out)


def check_symmetric(nodes, conns, seen, by_desc):
    ends = {}
    for (lo, hi), who in seen.items():
        for end in (lo, hi):
            if end in ends and ends[end] != (lo, hi):
                raise ParseError("port %s:%d used by two links" % end)
            ends[end] = (lo, hi)
    present = {node_key(nodes, n, by_desc) for n in nodes}
    for (lo, hi), who in seen.items():
        if lo[0] in present and hi[0] in present and len(who) != 2 and lo != hi:
            raise ParseError("link %s:%d - %s:%d listed from one end only"
                             % (lo + hi))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", nargs="?", default="-")
    ap.add_argument("--lids", action="store_true")
    ap.add_argument("--by-desc", action="store_true")
    ap.add_argument("--strict", action="store_true")
    args = ap.parse_args(argv)
    try:
        f = sys.stdin if args.file == "-" else open(args.file)
        with f:
            nodes, conns = parse(f)
        lines = canon(nodes, conns, args.by_desc, args.strict, args.lids)
    except (OSError, ParseError) as e:
        sys.stderr.write("ibnet_norm: %s\n" % e)
        return 1
    sys.stdout.write("".join(l + "\n" for l in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""DOC: the SA's answers against the fabric's truth, on a running ibsim.

Run by tests/integration/sa.sh with the simulator and ibsmd up. Every
query goes through saquery (or tests/agent/sa_agent for what saquery
cannot send), narrowed to 1-2 records: under ibsim only the first 224
bytes of an answer arrive intact (sa-mcast-ha.md 2.5). Each answer is
compared field by field with what nobody in this project wrote: the
simulator's own Dump (links, LIDs, forwarding tables), smpquery,
smpdump, sminfo and ibtracert.

Usage: sa_check.py DUMP_FILE AGENT [--multiport]
Environment: SIM_PRELOAD, IBSIM_SOCKNAME, SIM_DIR (as lib.sh sets them).
Prints one line per check and "failures N"; exit status 1 on failures.
"""

import ipaddress
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simstate  # noqa: E402

FAILS = []
CHECKS = [0]
AGENT = None
HOST = None          # the node the queries are asked from
SA_KEY = '1'         # ibsmd's default sa_key, OpenSM's too


def run(args, host=None, check=True):
    env = dict(os.environ, LD_PRELOAD=os.environ['SIM_PRELOAD'], SIM_HOST=host or HOST)
    p = subprocess.run(['timeout', '-k', '2', '30'] + args, env=env, capture_output=True,
                       text=True, cwd=os.path.join(os.environ['SIM_DIR'], 'run'))
    if check and p.returncode != 0:
        fail('%s: exit %d: %s' % (' '.join(args), p.returncode, p.stderr.strip()[-200:]))
    return p.stdout


def fail(msg):
    FAILS.append(msg)
    print('FAIL ' + msg)


def expect(what, got, want):
    CHECKS[0] += 1
    if got != want:
        fail('%s: got %r, want %r' % (what, got, want))


def num(s):
    s = s.strip().split()[0]
    return int(s, 16) if s.lower().startswith('0x') else int(s)


KV = re.compile(r'^\s*([A-Za-z_][^.:]*?)\s*:?\.{2,}:?\s*(.*?)\s*$')


def records(text):
    """saquery output as a list of {field: value} per record."""
    recs = []
    for ln in text.splitlines():
        if re.match(r'^\S.*(dump|Record dump|ClassPortInfo):\s*$', ln):
            recs.append({})
            continue
        m = KV.match(ln)
        if m and recs:
            recs[-1].setdefault(m.group(1), m.group(2))
    return recs


def kv(text):
    out = {}
    for ln in text.splitlines():
        m = KV.match(ln)
        if m:
            out.setdefault(m.group(1), m.group(2))
    return out


def saquery(*args, trusted=False):
    key = ['--smkey', SA_KEY] if trusted else []
    return records(run(['saquery'] + key + list(args)))


def agent(*args, key=None):
    """sa_agent req ...: (status, [record bytes])."""
    out = run([AGENT, '-t', '10'] + (['-k', key] if key else []) + ['req'] + list(args))
    lines = out.splitlines()
    if not lines:
        return None, []
    status = int(lines[0].split()[1], 16)
    return status, [bytes.fromhex(ln.split()[2]) for ln in lines[1:] if ln.startswith('rec ')]


def gid(prefix, guid):
    return str(ipaddress.IPv6Address((prefix << 64) | guid))


# --- the fabric, from the simulator's Dump ---

class Fabric:
    def __init__(self, dump):
        with open(dump) as f:
            self.nodes = simstate.parse(simstate.last_dump(f.read().splitlines()))
        self.by_name = self.nodes

    def lid(self, name, port=None):
        n = self.nodes[name]
        if n.kind == 'Switch':
            return n.ports[0]['lid']
        return n.ports[port or 1]['lid']

    def node_at(self, lid):
        for n in self.nodes.values():
            for num, p in n.ports.items():
                if p.get('lid') and p['lid'] <= lid < p['lid'] + (1 << p['lmc']) and \
                        (n.kind == 'Ca' or num == 0):
                    return n, num
        return None, None

    def switches(self):
        return sorted(n.name for n in self.nodes.values() if n.kind == 'Switch')

    def cas(self):
        return sorted(n.name for n in self.nodes.values() if n.kind == 'Ca')

    def links_from(self, name):
        """(from_lid, from_port, to_port, to_lid) of every link of a node."""
        n, out = self.nodes[name], set()
        for num, p in n.ports.items():
            if num and simstate.linked(p):
                out.add((self.lid(name, num), num, p['peer_port'],
                         self.lid(p['peer'], p['peer_port'])))
        return out


# --- the checks ---

def check_nr(fab, name, port=1):
    lid = fab.lid(name, port)
    recs = saquery('NR', str(lid))
    expect('NR %d: records' % lid, len(recs), 1)
    if not recs:
        return
    r, ni = recs[0], kv(run(['smpquery', 'nodeinfo', str(lid)]))
    desc = kv(run(['smpquery', 'nodedesc', str(lid)]))['Node Description']
    fields = [('node_guid', 'Guid'), ('port_guid', 'PortGuid'), ('sys_guid', 'SystemGuid'),
              ('num_ports', 'NumPorts'), ('partition_cap', 'PartCap'), ('revision', 'Revision'),
              ('vendor_id', 'VendorId'), ('device_id', 'DevId')]
    # LocalPortNum is the port an SMP came in by: for a switch that depends
    # on who asks (discovery came by a link, smpquery's LID-routed Get by 0)
    if fab.nodes[name].kind == 'Ca':
        fields.append(('port_num', 'LocalPort'))
    for mine, theirs in fields:
        expect('NR %d %s' % (lid, mine), num(r[mine]), num(ni[theirs]))
    expect('NR %d lid' % lid, num(r['lid']), lid)
    expect('NR %d desc' % lid, r['NodeDescription'], desc)


def check_pir(fab, name, port):
    lid = fab.lid(name, port if fab.nodes[name].kind == 'Ca' else None)
    recs = saquery('PIR', '%d/%d' % (lid, port))
    expect('PIR %d/%d: records' % (lid, port), len(recs), 1)
    if not recs:
        return
    mine = recs[0]
    truth = kv(run(['smpquery', 'portinfo', str(lid), str(port)]))
    expect('PIR %d/%d EndPortLid' % (lid, port), num(mine['EndPortLid']), lid)
    keys = ['Lid', 'SMLid', 'CapMask', 'LinkState', 'PhysLinkState', 'LinkWidthActive',
            'LinkSpeedActive', 'NeighborMTU', 'MtuCap', 'VLCap', 'OperVLs', 'LMC', 'GidPrefix',
            'VLArbHighCap', 'VLArbLowCap', 'GuidCap', 'SubnetTimeout', 'CapabilityMask2']
    if fab.nodes[name].kind == 'Ca':
        keys.append('LocalPort')   # see check_nr
    for key in keys:
        expect('PIR %d/%d %s' % (lid, port, key), mine.get(key), truth.get(key))


def check_lr(fab, name):
    lid = fab.lid(name)
    recs = saquery('LR', str(lid))
    got = {(num(r['FromLID']), num(r['FromPort']), num(r['ToPort']), num(r['ToLID']))
           for r in recs}
    # a CA's LID is one port's: the links of that port
    want = {x for x in fab.links_from(name) if x[0] == lid}
    # at most 21 LinkRecords arrive intact (sa-mcast-ha.md 2.5)
    if len(want) <= 21:
        expect('LR %d' % lid, got, want)
    # and by FromLID and FromPort: the one link
    port = min(p for (_, p, _, _) in want)
    recs = saquery('LR', '%d/%d' % (lid, port))
    expect('LR %d/%d' % (lid, port), len(recs), 1)


def check_swir(fab, name):
    lid = fab.lid(name)
    recs = saquery('SWIR', str(lid))
    expect('SWIR %d: records' % lid, len(recs), 1)
    if not recs:
        return
    r, t = recs[0], kv(run(['smpquery', 'switchinfo', str(lid)]))
    for mine, theirs in (('LinearFDBCap', 'LinearFdbCap'), ('MulticastFDBCap', 'McastFdbCap'),
                         ('LinearFDBTop', 'LinearFdbTop'), ('PartitionEnforcementCap',
                                                             'PartEnforceCap')):
        expect('SWIR %d %s' % (lid, mine), num(r[mine]), num(t[theirs]))
    ltv = num(r['LifeTimeValue/PortStateChange/OpSL2VL'])
    expect('SWIR %d LifeTime' % lid, ltv >> 3, num(t['LifeTime']))


def check_lftr(fab, name, block):
    lid = fab.lid(name)
    out = run(['saquery', 'LFTR', '%d/%d' % (lid, block)])
    got = {int(a): int(b) for a, b in re.findall(r'^\s+(\d+)\s+(\d+)\s*$', out, re.M)}
    expect('LFTR %d/%d: entries' % (lid, block), len(got), 64)
    lft = fab.nodes[name].lft
    want = {l: lft.get(l, 0xFF) for l in range(64 * block, 64 * block + 64)}
    expect('LFTR %d/%d ports' % (lid, block), got, want)


def check_mftr(fab, name):
    lid = fab.lid(name)
    expect('MFTR: records', len(saquery('MFTR')), 0)
    out = run(['ibroute', '-M', str(lid)])
    expect('ibroute -M %d: groups' % lid, '0 valid mlids dumped' in out, True)


def check_gir(fab, name, port=1):
    lid = fab.lid(name, port)
    recs = saquery('GIR', '%d/0' % lid)
    expect('GIR %d: records' % lid, len(recs), 1)
    words = run(['smpdump', '-L', str(lid), '0x14', '0']).split()
    data = bytes.fromhex(''.join(words[:32]))
    for i in range(8):
        expect('GIR %d GUID %d' % (lid, i), num(recs[0]['GUID %d' % i]) if recs else None,
               int.from_bytes(data[8 * i:8 * i + 8], 'big'))


def pkeys_of(text):
    return [int(x, 16) for x in re.findall(r'0x[0-9a-f]{4}', text)]


def check_pktr(fab, name, port):
    sw = fab.nodes[name].kind == 'Switch'
    lid = fab.lid(name, None if sw else port)
    arg = '%d/%d/0' % (lid, port)
    out = run(['saquery', '--smkey', SA_KEY, 'PKTR', arg])
    recs = records(out)
    expect('PKTR %s: records' % arg, len(recs), 1)
    truth = run(['smpquery', 'pkeys', str(lid)] + ([str(port)] if sw else []))
    expect('PKTR %s P_Keys' % arg, pkeys_of(out)[:32], pkeys_of(truth)[:32])
    # untrusted: refused
    out = run(['saquery', 'PKTR', arg], check=False)
    expect('PKTR %s untrusted' % arg, len(records(out)), 0)


def check_sl2vl(fab, name, inp, outp):
    lid = fab.lid(name)
    out = run(['saquery', 'SL2VL', '%d/%d/%d' % (lid, inp, outp)])
    vls = re.findall(r'VL:((?:\s*\d+\|)+)', out)
    expect('SL2VL %d/%d/%d: records' % (lid, inp, outp), len(vls), 1)
    truth = run(['smpquery', 'sl2vl', str(lid), str(outp), str(inp)])
    row = re.search(r'in\s+%d, out\s+%d: \|((?:\s*\d+\|)+)' % (inp, outp), truth)
    if vls and row:
        expect('SL2VL %d/%d/%d table' % (lid, inp, outp), vls[0].split('|')[:16],
               row.group(1).split('|')[:16])
    elif not row:
        fail('smpquery sl2vl %d %d %d: no row' % (lid, outp, inp))


def check_vlar(fab, name, port):
    lid = fab.lid(name, port if fab.nodes[name].kind == 'Ca' else None)
    out = run(['saquery', 'VLAR', '%d/%d/1' % (lid, port)])
    vl = re.findall(r'VL\s+:((?:\s*\d+\|)+)', out)
    wt = re.findall(r'Weight:((?:\s*\d+\|)+)', out)
    truth = run(['smpquery', 'vlarb', str(lid), str(port)])
    tvl = re.findall(r'VL\s+: \|(.*)', truth)
    twt = re.findall(r'WEIGHT: \|(.*)', truth)
    if not vl or not tvl:
        fail('VLAR %d/%d: no table' % (lid, port))
        return
    n = len([x for x in tvl[0].split('|') if x.strip()])
    expect('VLAR %d/%d VLs' % (lid, port), [int(x) for x in vl[0].split('|')[:n]],
           [int(x, 16) for x in tvl[0].split('|')[:n]])
    expect('VLAR %d/%d weights' % (lid, port), [int(x) for x in wt[0].split('|')[:n]],
           [int(x, 16) for x in twt[0].split('|')[:n]])


def check_smir(fab):
    recs = saquery('SMIR')
    expect('SMIR: records', len(recs), 1)
    m = re.search(r'sm lid (\d+) sm guid (0x[0-9a-f]+).*priority (\d+) state (\d+)',
                  run(['sminfo']))
    if recs and m:
        r = recs[0]
        expect('SMIR LID', num(r['LID']), int(m.group(1)))
        expect('SMIR GUID', num(r['GUID']), int(m.group(2), 16))
        expect('SMIR priority', num(r['Priority']), int(m.group(3)))
        expect('SMIR state', num(r['SMState']), int(m.group(4)))
        expect('SMIR SM_Key untrusted', num(r['SM_Key']), 0)


def check_cpi():
    r = records(run(['saquery', '-c']))
    expect('CPI: records', len(r), 1)
    if r:
        expect('CPI class version', num(r[0]['Class version']), 2)
        # IsSubnetGetSetNoticeSupported (1), IsSubnetOptionalRecordsSupported (8),
        # IsUDMulticastSupported (9), IsMultiPathSupported (10), PortInfoCapMask match (13)
        expect('CPI capability mask', num(r[0]['Capability mask']), 0x2702)
        expect('CPI response time', num(r[0]['Response time value']), 18)


def mtu_code(s):
    return {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}[int(s)]


RATE = {(1, 25): 2, (4, 25): 3, (1, 50): 5, (4, 50): 6, (4, 100): 7, (1, 100): 3,
        (2, 25): 5, (2, 50): 3, (2, 100): 6, (8, 25): 6, (8, 50): 7, (8, 100): 9,
        (12, 25): 4, (12, 50): 8, (12, 100): 10}


def link_params(lid, port):
    t = kv(run(['smpquery', 'portinfo', str(lid), str(port)]))
    width = int(t['LinkWidthActive'].rstrip('X'))
    speed = int(float(t['LinkSpeedActive'].split()[0]) * 10)
    return mtu_code(t['NeighborMTU']), width * speed, RATE[(width, speed)]


def traced(slid, dlid):
    """ibtracert: the links crossed (egress lid, port, ingress lid, port)
    and the switches on the way."""
    out = run(['ibtracert', str(slid), str(dlid)])
    hops, switches, prev = [], 0, slid
    for m in re.finditer(r'^\[(\d+)\] -> (\w+) port \{\S+\}\[(\d+)\] lid (\d+)-', out, re.M):
        hops.append((prev, int(m.group(1)), int(m.group(4)), int(m.group(3))))
        prev = int(m.group(4))
        switches += m.group(2) == 'switch'
    return hops, switches


def check_pr(fab, src, dst):
    slid, dlid = fab.lid(src), fab.lid(dst)
    recs = saquery('-p', '--src-to-dst', '%d:%d' % (slid, dlid))
    expect('PR %d->%d: records' % (slid, dlid), len(recs) >= 1, True)
    if not recs:
        return
    r = recs[0]
    hops, switches = traced(slid, dlid)
    # the ends' MTUCap (a switch's port 0 has no link) and every link's
    # NeighborMTU at both ends
    mtu = min(mtu_code(kv(run(['smpquery', 'portinfo', str(x),
                               '0' if fab.node_at(x)[0].kind == 'Switch' else str(fab.node_at(x)[1])]
                              ))['MtuCap']) for x in (slid, dlid))
    tenths = 10 ** 9
    for a, ap, b, bp in hops:
        m1, g1, _ = link_params(a, ap)
        m2, _, _ = link_params(b, bp)
        mtu, tenths = min(mtu, m1, m2), min(tenths, g1)
    ltv = max(num(kv(run(['smpquery', 'switchinfo', str(b)]))['LifeTime'])
              for _, _, b, _ in hops[:-1]) if switches else 0
    plt = ltv + (switches - 1).bit_length() if switches else 0
    ni_s = kv(run(['smpquery', 'nodeinfo', str(slid)]))
    ni_d = kv(run(['smpquery', 'nodeinfo', str(dlid)]))
    prefix = num(kv(run(['smpquery', 'portinfo', str(slid)]))['GidPrefix'])
    expect('PR %d->%d slid' % (slid, dlid), num(r['slid']), slid)
    expect('PR %d->%d dlid' % (slid, dlid), num(r['dlid']), dlid)
    expect('PR %d->%d sgid' % (slid, dlid), r['sgid'], gid(prefix, num(ni_s['PortGuid'])))
    expect('PR %d->%d dgid' % (slid, dlid), r['dgid'], gid(prefix, num(ni_d['PortGuid'])))
    expect('PR %d->%d mtu' % (slid, dlid), num(r['mtu']), 0x80 | mtu)
    expect('PR %d->%d rate' % (slid, dlid), num(r['rate']),
           0x80 | {25: 2, 100: 3, 50: 5, 200: 6, 400: 7, 300: 4, 600: 8, 800: 9,
                   1200: 10}[tenths])
    expect('PR %d->%d pkt_life (%d switches)' % (slid, dlid, switches), num(r['pkt_life']),
           0x80 | plt)
    expect('PR %d->%d reversible' % (slid, dlid), num(r['num_path_revers']) & 0x80, 0x80)
    expect('PR %d->%d pkey' % (slid, dlid), num(r['pkey']), 0xFFFF)
    return r


def pr_template(sguid, dguid, prefix=0xfe80000000000000):
    t = bytearray(64)
    t[8:24] = ((prefix << 64) | dguid).to_bytes(16, 'big')
    t[24:40] = ((prefix << 64) | sguid).to_bytes(16, 'big')
    return t


def check_pr_rdmacm(fab, src, dst):
    """A Get as RDMA CM sends it: exactly one record (sa-mcast-ha.md 4.2)."""
    sg = num(kv(run(['smpquery', 'nodeinfo', str(fab.lid(src))]))['PortGuid'])
    dg = num(kv(run(['smpquery', 'nodeinfo', str(fab.lid(dst))]))['PortGuid'])
    t = pr_template(sg, dg)
    t[49] = 0x81
    t[50:52] = b'\xff\xff'
    mask = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 11) | (1 << 12) | (1 << 13)
    st, recs = agent('0x01', '0x35', hex(mask), t.hex())
    expect('PR Get (RDMA CM) %s->%s status' % (src, dst), st, 0)
    if recs:
        expect('PR Get dlid', int.from_bytes(recs[0][40:42], 'big'), fab.lid(dst))
        expect('PR Get slid', int.from_bytes(recs[0][42:44], 'big'), fab.lid(src))
    return sg, dg


def check_mpr(fab, src, dsts):
    """GetMulti: one source, two destinations: two PathRecords, the same
    as PathRecord answers for those pairs."""
    guids = [num(kv(run(['smpquery', 'nodeinfo', str(fab.lid(x))]))['PortGuid'])
             for x in [src] + dsts]
    t = bytearray(24)
    t[15], t[16] = 1, len(dsts)
    for g in guids:
        t += ((0xfe80000000000000 << 64) | g).to_bytes(16, 'big')
    st, recs = agent('0x14', '0x3a', hex((1 << 19) | (1 << 20)), t.hex())
    expect('MPR status', st, 0)
    expect('MPR records', len(recs), len(dsts))
    for rec, d in zip(recs, dsts):
        t2 = pr_template(guids[0], guids[1 + dsts.index(d)])
        st2, single = agent('0x01', '0x35', hex((1 << 2) | (1 << 3)), t2.hex())
        expect('MPR record = PR %s' % d, rec, single[0] if single else None)


def check_masks(fab, name):
    """NodeRecord by node GUID, port GUID and node description."""
    lid = fab.lid(name)
    ni = kv(run(['smpquery', 'nodeinfo', str(lid)]))
    for bit, off, val in ((7, 16, num(ni['Guid']).to_bytes(8, 'big')),
                          (8, 24, num(ni['PortGuid']).to_bytes(8, 'big')),
                          (14, 44, name.encode())):
        t = bytearray(108)
        t[off:off + len(val)] = val
        st, recs = agent('0x12', '0x11', hex(1 << bit), t.hex())
        expect('NR by mask bit %d: status' % bit, st, 0)
        expect('NR by mask bit %d: records' % bit, len(recs), 1)
        if recs:
            expect('NR by mask bit %d: LID' % bit, int.from_bytes(recs[0][0:2], 'big'), lid)


def check_errors(fab):
    t = bytearray(108)
    t[0:2] = (0xB000).to_bytes(2, 'big')
    expect('Get NR, no such LID', agent('0x01', '0x11', '1', t.hex())[0], 0x0300)
    expect('GetTable NR, no such LID', agent('0x12', '0x11', '1', t.hex()), (0, []))
    expect('NR, mask bit beyond the record', agent('0x12', '0x11', hex(1 << 20))[0], 0x0200)
    expect('method 0x03', agent('0x03', '0x11', '0')[0], 0x0008)
    expect('Set NodeRecord', agent('0x02', '0x11', '0')[0], 0x000C)
    expect('unknown attribute', agent('0x12', '0x99', '0')[0], 0x000C)
    expect('wrong SM_Key', agent('0x12', '0x11', '0', key='7')[0], 0x0700)
    expect('PR half a ServiceID', agent('0x01', '0x35', '1')[0], 0x0600)
    expect('saquery NR of no LID', run(['saquery', 'NR', '48000']), '')


def check_sr(fab, name):
    """ServiceRecord: registered with Set, read back by saquery, deleted."""
    lid = fab.lid(name)
    guid = num(kv(run(['smpquery', 'nodeinfo', str(lid)]))['PortGuid'])
    t = bytearray(176)
    t[0:8] = (0x1000000000000abc).to_bytes(8, 'big')
    t[8:24] = ((0xfe80000000000000 << 64) | guid).to_bytes(16, 'big')
    t[28:32] = (600).to_bytes(4, 'big')
    t[48:48 + 10] = b'sa-test-sr'
    mask = (1 << 0) | (1 << 1) | (1 << 4) | (1 << 6)
    expect('SR Set', agent('0x02', '0x31', hex(mask), t.hex())[0], 0)
    recs = saquery('-S')
    expect('SR records', len(recs), 1)
    if recs:
        r = recs[0]
        expect('SR id', num(r['ServiceID']), 0x1000000000000abc)
        expect('SR gid', r['ServiceGID'], gid(0xfe80000000000000, guid))
        expect('SR name', r['ServiceName'], 'sa-test-sr')
        expect('SR lease', num(r['ServiceLease']), 600)
        expect('SR pkey', num(r['ServiceP_Key']), 0xFFFF)
    expect('SR Delete', agent('0x15', '0x31', hex(3), t.hex())[0], 0)
    expect('SR gone', len(saquery('-S')), 0)


def main():
    global AGENT, HOST
    dump, AGENT = sys.argv[1], sys.argv[2]
    fab = Fabric(dump)
    cas, sws = fab.cas(), fab.switches()
    HOST = cas[1]
    sw = sws[len(sws) // 2]
    for name in (cas[0], cas[-1], sw):
        check_nr(fab, name)
    check_pir(fab, cas[-1], 1)
    check_pir(fab, sw, 1)
    check_pir(fab, sw, 0)
    check_lr(fab, sw)
    check_lr(fab, cas[-1])
    check_swir(fab, sw)
    check_lftr(fab, sw, 0)
    check_mftr(fab, sw)
    check_gir(fab, cas[-1])
    check_pktr(fab, cas[-1], 1)
    check_pktr(fab, sw, 1)
    check_sl2vl(fab, sw, 1, 2)
    check_vlar(fab, cas[-1], 1)
    check_smir(fab)
    check_cpi()
    check_pr(fab, cas[0], cas[-1])
    check_pr(fab, cas[-1], cas[len(cas) // 2])
    check_pr(fab, cas[1], sw)
    check_pr_rdmacm(fab, cas[0], cas[-1])
    check_mpr(fab, cas[0], [cas[-1], cas[len(cas) // 2]])
    check_masks(fab, cas[-1])
    check_masks(fab, sw)
    check_errors(fab)
    check_sr(fab, HOST)   # an untrusted host registers under its own GID only
    if '--multiport' in sys.argv:
        multi = [n for n in cas if fab.nodes[n].nports > 1][0]
        check_nr(fab, multi, 2)
        check_pir(fab, multi, 2)
        check_gir(fab, multi, 2)
        slid, dlid = fab.lid(cas[0]), fab.lid(multi, 2)
        recs = saquery('-p', '--src-to-dst', '%d:%d' % (slid, dlid))
        expect('PR to a second port', num(recs[0]['dlid']) if recs else None, dlid)
    print('checks %d failures %d' % (CHECKS[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())

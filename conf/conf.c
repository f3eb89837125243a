/*
 * DOC: option table, parser, canonical printer and reload diff.
 *
 * opts[] below is the only list of options. Defaults are written in file
 * syntax and go through the same value parser as the file, so a default can
 * never be something the file could not say. Values are parsed into a
 * union first and stored only when valid, which keeps conf_set()
 * all-or-nothing and lets the parser keep going after an error.
 */
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf.h"
#include "conf/qosconf.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define OFF(f) offsetof(struct sm_conf, f)

#ifndef IBSM_DEFAULT_STATEDIR
#define IBSM_DEFAULT_STATEDIR "/var/lib/ibsmd"
#endif

/* Orders must match enum conf_log_level, conf_routing_engine, conf_ar_mode,
 * conf_part_enforce, conf_client_rereg, conf_health_action. */
static const char *const log_levels[] = {
	"err", "warning", "notice", "info", "debug", NULL
};
/* The routing library's engine names (routing/routing.h route_engine_names). */
static const char *const route_engines[] = {
	"auto", "minhop", "updn", "ftree", NULL
};
static const char *const ar_modes[] = { "free", "bounded", NULL };
static const char *const part_enforce[] = { "both", "in", "out", "off", NULL };
static const char *const client_rereg[] = { "auto", "always", "never", NULL };
static const char *const health_actions[] = { "report", "isolate", NULL };

#define BOOL(n, d, rl, h) \
	{ .name = #n, .type = CONF_BOOL, .off = OFF(n), .def = d, \
	  .reloadable = rl, .help = h }
#define UINT(n, lo, hi, d, u, rl, h) \
	{ .name = #n, .type = CONF_UINT, .off = OFF(n), .min = lo, .max = hi, \
	  .def = d, .unit = u, .reloadable = rl, .help = h }
#define HEX(n, hi, d, rl, h) \
	{ .name = #n, .type = CONF_HEX, .off = OFF(n), .max = hi, .def = d, \
	  .reloadable = rl, .help = h }
#define STR(n, maxlen, path, d, rl, h) \
	{ .name = #n, .type = CONF_STRING, .off = OFF(n), .max = maxlen, \
	  .abs_path = path, .def = d, .reloadable = rl, .help = h }
#define STRC(n, maxlen, fn, d, rl, h) \
	{ .name = #n, .type = CONF_STRING, .off = OFF(n), .max = maxlen, \
	  .check = fn, .def = d, .reloadable = rl, .help = h }
#define ENUM(n, vals, d, rl, h) \
	{ .name = #n, .type = CONF_ENUM, .off = OFF(n), .values = vals, \
	  .def = d, .reloadable = rl, .help = h }
#define GUIDS(n, rl, h) \
	{ .name = #n, .type = CONF_GUIDS, .off = OFF(n), .def = "\"\"", \
	  .reloadable = rl, .help = h }

static const struct conf_opt opts[] = {
	STR(ca, 63, false, "\"\"", false,
	    "RDMA device (umad CA name, e.g. mlx5_0) the SM runs on. "
	    "Empty: the first device with an active port."),
	UINT(port, 0, 254, "0", NULL, false,
	     "Port number on that device. 0: the first active port."),
	HEX(port_guid, UINT64_MAX, "0", false,
	    "Select the local port by its GUID instead of ca/port. "
	    "0: unset."),
	UINT(sm_priority, 0, 15, "0", NULL, true,
	     "SMInfo:Priority used in master SM election; the highest priority "
	     "wins, then the lowest port GUID. A master hands over to a standby "
	     "of higher priority."),
	HEX(sm_key, UINT64_MAX, "0x1", false,
	    "SMInfo:SM_Key. SMs with another non-zero key are ignored, and "
	    "SMInfo Sets (handover, disable...) from them refused. The "
	    "default is OpenSM's, so the two recognise each other; it is "
	    "public: while it is 0x1 ibsmd warns at start and ibsmctl status "
	    "lists it (public_key). Set the same secret on every SM of the "
	    "subnet (ibsmd(8), THE SM_KEY)."),
	UINT(sm_poll_interval, 100, 60000, "1000", "ms", true,
	     "A standby SM asks the master for its SMInfo this often."),
	UINT(sm_poll_retries, 1, 20, "2", NULL, true,
	     "A standby takes over after this many polls in a row that the "
	     "master did not answer (a failed poll is repeated after a quarter "
	     "of sm_poll_interval), or this many + 1 answers whose ActCount "
	     "did not move."),
	UINT(sweep_interval, 0, 86400, "0", "s", true,
	     "Time between periodic heavy sweeps (full discovery, then "
	     "reprogramming of what changed). 0: no periodic heavy sweep; "
	     "sweeps still follow traps, light-sweep findings and control "
	     "requests."),
	UINT(light_sweep_interval, 0, 86400, "10", "s", true,
	     "Time between light sweeps, which read every switch's "
	     "SwitchInfo PortStateChange bit and the ports of a switch that "
	     "has it set: a link that went down is rerouted at once, a link "
	     "that came up starts a heavy sweep. 0: off."),
	UINT(flap_holddown_s, 0, 3600, "10", "s", true,
	     "A port that changed state within this time is held out of "
	     "routing until it has been stable this long. 0: no hold-down."),
	UINT(audit_period, 0, 86400, "300", "s", true,
	     "The background audit re-reads, a share at each light sweep, every "
	     "LID-holding port's PortInfo, every switch's LFT blocks and every "
	     "P_KeyTable block the SM laid out, so that the whole fabric is "
	     "checked once per this period, and writes back what differs from "
	     "what the SM programmed (a table block or a LID someone else "
	     "changed, or a P_KeyTable that was not the reset one on a CA port "
	     "or switch port 0 no SM had configured: the bring-up does not read "
	     "those; a switch's external ports taken so are read back right "
	     "after the sweep, not left to the audit). The share "
	     "is fabric size x light_sweep_interval / audit_period SMPs per "
	     "light sweep: on a 3456-host, 720-switch tree about 2 200 every "
	     "10 s with the default. The SM's own port is read at every light sweep. 0: no "
	     "audit but of the SM's port."),
	ENUM(routing_engine, route_engines, "auto", true,
	     "Unicast routing engine. auto lets the routing library choose "
	     "from the topology; it logs the engine it chose and why."),
	GUIDS(root_guids, true,
	      "Node GUIDs of the root (spine) switches for updn and ftree, "
	      "separated by commas or blanks. Empty: detect the roots."),
	UINT(lmc, 0, 7, "0", NULL, false,
	     "LID Mask Control: each port gets 2^lmc consecutive LIDs "
	     "Changing it renumbers the subnet."),
	HEX(subnet_prefix, UINT64_MAX, "0xfe80000000000000", false,
	    "PortInfo:GidPrefix programmed into every port."),
	HEX(m_key, UINT64_MAX, "0", false,
	    "PortInfo:M_Key programmed into every port. "
	    "0: no management key."),
	UINT(m_key_lease_period, 0, 65535, "0", "s", true,
	     "PortInfo:M_KeyLeasePeriod. 0: the lease never expires."),
	UINT(m_key_protect, 0, 3, "0", NULL, true,
	     "PortInfo:M_KeyProtectBits."),
	UINT(subnet_timeout, 0, 31, "18", NULL, true,
	     "PortInfo:SubnetTimeOut, encoded as 4.096 us * 2^value "
	     "(18: about 1 s)."),
	UINT(packet_life_time, 0, 19, "18", NULL, true,
	     "SwitchInfo:LifeTimeValue written to every switch where it "
	     "differs: how long a packet may stay in a switch, encoded as "
	     "4.096 us * 2^value (18: about 1 s). The SA's PathRecord "
	     "PacketLifeTime is the largest value on the path plus log2 of "
	     "its switches. A reload that changes it sweeps."),
	UINT(max_op_vls, 1, 5, "5", NULL, false,
	     "Upper bound for PortInfo:OperVLs, IBA encoding: 1 = VL0, "
	     "2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14. Changing OperVLs "
	     "takes the link down."),
	UINT(smp_window, 1, 1024, "64", NULL, true,
	     "Maximum SMPs outstanding on the fabric."),
	UINT(smp_per_dest, 1, 64, "4", NULL, true,
	     "Maximum SMPs outstanding to one node."),
	UINT(smp_timeout_ms, 10, 10000, "200", "ms", true,
	     "Time to wait for an SMP response before a retry."),
	UINT(smp_retries, 0, 10, "3", NULL, true,
	     "Immediate retries of a timed-out SMP."),
	UINT(smp_retries_max, 0, 15, "15", NULL, true,
	     "Retries in all of an SMP that keeps failing on a node that "
	     "answers other SMPs: after the smp_retries immediate ones, each "
	     "waits twice as long as the one before (10 ms to 500 ms) without "
	     "holding a place in the window. A node whose SMPs time out every "
	     "time twice in a row gets the immediate retries only. Lossy "
	     "links then cost time, not wrong answers."),
	STR(state_dir, 1024, true, "\"" IBSM_DEFAULT_STATEDIR "\"", false,
	    "Directory for persistent state (GUID to LID assignments)."),
	STR(socket_path, 107, true, "\"/run/ibsmd/ibsmd.sock\"", false,
	    "Path of the control socket."),
	STR(socket_group, 32, false, "\"\"", false,
	    "Group whose members may run privileged control commands. "
	    "Empty: root only; everybody may run read-only commands."),
	UINT(max_clients, 1, 1024, "64", NULL, true,
	     "Maximum concurrent control-socket connections."),
	UINT(max_clients_per_uid, 1, 1024, "16", NULL, true,
	     "Maximum concurrent control-socket connections of one user (peer "
	     "uid) who is not an admin. Admins (root, the daemon's own user, "
	     "members of socket_group) are bound by max_clients only."),
	UINT(admin_clients, 0, 1024, "8", NULL, true,
	     "Control-socket connections, out of max_clients, that only admins "
	     "may take: other users together get at most max_clients - "
	     "admin_clients, so they cannot lock root out."),
	UINT(client_idle_timeout, 0, 86400, "60", "s", true,
	     "A control connection that is not subscribed to events, waits for "
	     "no sweep, and has neither sent a request nor taken any of its "
	     "replies for this long is closed with an idle_timeout error. "
	     "0: never."),
	ENUM(log_level, log_levels, "info", true,
	     "Least severe message level that is logged."),
	BOOL(ar_enable, "no", true,
	     "Program adaptive routing on switches that support it."),
	ENUM(ar_mode, ar_modes, "free", true,
	     "free: a switch may pick any port of the group for every "
	     "packet. bounded: it keeps the port for the length of a burst "
	     "(see ar_ageing_time_us)."),
	UINT(ar_ageing_time_us, 0, UINT32_MAX, "30", "us", true,
	     "Idle time that ends a burst in bounded mode (ARInfo "
	     "ageing_time_value)."),
	HEX(ar_sl_mask, 0xffff, "0xffff", true,
	    "Service levels adaptive routing applies to, bit n = SL n."),
	HEX(ar_transport_mask, 0xf, "0xa", true,
	    "Transports adaptive routing applies to: bit 0 UD, 1 RC, 2 UC, "
	    "3 DC. The default, RC and DC, leaves UD and UC in order."),
	HEX(sa_key, UINT64_MAX, "0x1", true,
	    "SM_Key that makes an SA request trusted (saquery --smkey): "
	    "trusted requesters see M_Keys, the SM_Key and P_Key tables, and "
	    "may replace or delete what other hosts registered. "
	    "Requests with SM_Key 0 are served untrusted, any other key is "
	    "refused. 0: nobody is trusted. The default is OpenSM's, and "
	    "public: any host may send it (ibsmd warns while it is 0x1). "
	    "Standbys copy the master's state with it: the same on every SM."),
	UINT(sa_max_records, 1, 1000000, "65536", NULL, true,
	     "Most records in one SA answer; a query that matches more is "
	     "answered ERR_REQ_TOO_MANY_RECORDS. An answer is also capped at "
	     "4 MiB (RMPP)."),
	UINT(sa_sweep_rate, 0, 10000000, "5000", NULL, true,
	     "SA queries answered per second while a sweep runs, so that a "
	     "query storm does not slow the sweep; the others wait for the "
	     "sweep to end, at most 0.5 s each (4096 of them, then BUSY). "
	     "0: no limit."),
	ENUM(client_reregister, client_rereg, "auto", true,
	     "When this SM becomes master it sets PortInfo:ClientReregister "
	     "on every CA port once, in its first sweep as master, so that "
	     "hosts (IPoIB, RDMA CM) join their multicast groups and subscribe "
	     "again. auto: only when it cannot be sure it holds the groups, "
	     "services and subscriptions the hosts made: no state file, or one "
	     "refused, or most CA ports name another SM as master; after a "
	     "takeover, no complete and current copy of an ibsmd master's "
	     "state. always: every time. never: not at all."),
	UINT(standby_copy_rate, 0, 10000, "100", NULL, true,
	     "SA queries per second with which a standby reads an ibsmd "
	     "master's multicast groups, services and subscriptions (a port at "
	     "a time, when they changed; both SMs need the same sa_key), so "
	     "that it serves them at once if it takes over. 0: no copy (a "
	     "takeover then sets ClientReregister)."),
	UINT(sa_groups_per_port, 0, 16384, "64", NULL, true,
	     "Multicast groups one port may have created through the SA that "
	     "still exist (a proxy create counts against the port that asked); "
	     "past it a create is refused with ERR_NO_RESOURCES, so one host "
	     "cannot take every MLID. IPoIB creates a handful per partition. "
	     "0: no limit."),
	UINT(sa_groups_per_partition, 0, 16384, "0", NULL, true,
	     "Multicast groups the hosts of one partition may have created "
	     "(the partitions file's groups do not count): set it below the "
	     "switches' MLIDs (MulticastFDBCap) so that no tenant can take "
	     "them all. 0: no limit."),
	UINT(sa_memberships_per_port, 0, 1000000, "1024", NULL, true,
	     "Multicast memberships one port may have made through the SA: "
	     "its own joins and its proxy joins of other ports. 0: no limit."),
	UINT(sa_max_memberships, 1, 4194304, "1048576", NULL, true,
	     "Multicast memberships in all (about 40 bytes each)."),
	UINT(sa_services_per_port, 0, 65536, "64", NULL, true,
	     "ServiceRecords one port may have registered. 0: no limit."),
	UINT(sa_max_services, 1, 65536, "16384", NULL, true,
	     "ServiceRecords in all (about 200 bytes each)."),
	UINT(sa_subscriptions_per_port, 0, 1024, "32", NULL, true,
	     "InformInfo subscriptions of one port. 0: no limit."),
	UINT(sa_max_subscriptions, 1, 65536, "16384", NULL, true,
	     "InformInfo subscriptions in all (about 100 bytes each)."),
	UINT(sa_trusted_share, 1, 1024, "16", NULL, true,
	     "A requester with the SM_Key (sa_key) may make this many times "
	     "the per-port shares above: trusted requests are bounded per "
	     "requester too."),
	STR(partitions_file, 1024, true, "\"/etc/ibsmd/partitions.conf\"", true,
	    "Partitions file in OpenSM's partitions.conf syntax. A missing "
	    "file gives OpenSM's default: Default=0x7fff,ipoib : ALL=full. A "
	    "file with errors is rejected at start and by a reload, which "
	    "then keeps the partitions in force."),
	ENUM(part_enforce, part_enforce, "both", true,
	     "Partition enforcement on switch ports that face CAs: they get "
	     "the CA's P_Keys and filter inbound, outbound, both or no "
	     "packets (PortInfo PartitionEnforcementInbound/Outbound), as "
	     "OpenSM's part_enforce. Inter-switch ports never filter."),
	BOOL(allow_both_pkeys, "no", true,
	     "Let a port be a full and a limited member of one partition "
	     "(membership 'both' in the partitions file); otherwise 'both' "
	     "means full, as in OpenSM."),
	BOOL(qos, "no", true,
	     "Program SL2VLMappingTable and VLArbitrationTable on every port "
	     "that takes them, from the qos_* options and each port's "
	     "operational VLs. Off, the tables are left as they are and "
	     "every path gets SL 0, as with OpenSM."),
	UINT(qos_max_vls, 1, 15, "15", NULL, true,
	     "Data VLs QoS uses at most, within each port's OperVLs."),
	UINT(qos_high_limit, 0, 255, "0", NULL, true,
	     "PortInfo:VLHighLimit: high-priority bytes (in 4 KiB units) "
	     "sent before a low-priority packet may go."),
	STRC(qos_vlarb_high, 1024, qos_check_vlarb, "\"0:4\"", true,
	     "High-priority VLArbitration table: VL:Weight pairs separated "
	     "by commas (VL 0..14, Weight 0..255 in 64-byte units). Entries "
	     "naming a VL a port does not operate get weight 0 there."),
	STRC(qos_vlarb_low, 1024, qos_check_vlarb,
	     "\"0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4\"",
	     true, "Low-priority VLArbitration table, as qos_vlarb_high."),
	STRC(qos_sl2vl, 1024, qos_check_sl2vl, "\"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7\"",
	     true, "SL to VL map: 16 VLs separated by commas, SL 0 first (15 "
	     "drops). A VL beyond a port's operational VLs is folded into "
	     "them (VL modulo the number of data VLs), so no SL is dropped "
	     "by accident."),
	STRC(qos_ca, 1024, qos_check_class, "\"\"", true,
	     "Overrides for CA ports, short for OpenSM's qos_ca_* options: "
	     "\"max_vls=N high_limit=N vlarb_high=LIST vlarb_low=LIST "
	     "sl2vl=LIST\", any subset, blank-separated."),
	STRC(qos_rtr, 1024, qos_check_class, "\"\"", true,
	     "Overrides for router ports, as qos_ca."),
	STRC(qos_sw0, 1024, qos_check_class, "\"\"", true,
	     "Overrides for switch port 0, as qos_ca."),
	STRC(qos_swe, 1024, qos_check_class, "\"\"", true,
	     "Overrides for switch external ports, as qos_ca."),
	UINT(mcast_batch_ms, 0, 1000, "50", "ms", true,
	     "Multicast joins and leaves are programmed in batches: a batch "
	     "starts when changes have paused for a fifth of this time (after "
	     "a burst of changes, for eight times their mean spacing if that "
	     "is shorter, at least 1 ms), or this long after its first change "
	     "at the latest; it recomputes "
	     "the trees once and writes each MulticastForwardingTable block "
	     "at most once. 0: program after every change."),
	BOOL(perfmgr, "yes", true,
	     "The performance manager: the master SM reads every linked port's "
	     "PMA counters (PortCounters and PortCountersExtended, as GMPs "
	     "queued below the SM's own SMPs), keeps 64-bit totals, judges link "
	     "health (ibsmctl health) and feeds the metrics page. A standby "
	     "does not poll."),
	UINT(perfmgr_interval, 1, 3600, "10", "s", true,
	     "Time from the start of one polling round to the next. A round "
	     "reads each linked port once with up to 2 queries (plus one "
	     "ClassPortInfo per node, once): ports x 2 / perfmgr_interval PMA "
	     "MADs a second, e.g. about 4 150/s on a 3456-host 3-level tree "
	     "(20 736 linked ports) at 10 s, some 5/s to each switch."),
	UINT(perfmgr_window, 1, 256, "128", NULL, true,
	     "PMA queries outstanding at once; they go out only while no SMP "
	     "waits for smp_window, none starts while a sweep runs, and while "
	     "hosts are asking the SA (a request in the last 20 ms) one is "
	     "kept outstanding and at most one sent a millisecond, so SA "
	     "answers neither queue behind them nor wait for the CPU they "
	     "take: under a sustained SA load a round takes at least ports x 2 "
	     "/ 1000 s (about 41 s on a 3456-host 3-level tree), and it goes "
	     "on. Under ibsim keep smp_window + this below about 256 (umad2sim "
	     "stalls with more MADs unread)."),
	UINT(perfmgr_per_node, 1, 64, "4", NULL, true,
	     "PMA queries outstanding at once to one node (of perfmgr_window): "
	     "a switch's ports all answer at its one LID, from one management "
	     "processor, so a round goes over the nodes side by side rather "
	     "than sending one switch all of its ports' queries at once (a "
	     "PMA that cannot queue them drops the rest, and each then waits "
	     "out a timeout). A node's queries beyond it wait for its "
	     "answers."),
	UINT(health_window, 1, 86400, "300", "s", true,
	     "Error counters are judged per window of this length: a counter "
	     "that grew by more than its threshold within one window is a "
	     "problem, reported until a whole window passes quietly."),
	UINT(health_symbol_errors, 0, UINT32_MAX, "10", NULL, true,
	     "SymbolErrorCounter growth per window above which a port has "
	     "symbol_errors (also when the errors exceed a bit error rate of "
	     "1e-14 of the bits the link carried)."),
	UINT(health_link_error_recovery, 0, UINT32_MAX, "10", NULL, true,
	     "LinkErrorRecoveryCounter growth per window: link_error_recovery."),
	UINT(health_link_downed, 0, UINT32_MAX, "10", NULL, true,
	     "LinkDownedCounter growth per window: link_downed."),
	UINT(health_rcv_errors, 0, UINT32_MAX, "10", NULL, true,
	     "PortRcvErrors growth per window: receive_errors."),
	UINT(health_rcv_remote_phys_errors, 0, UINT32_MAX, "100", NULL, true,
	     "PortRcvRemotePhysicalErrors growth per window."),
	UINT(health_xmit_discards, 0, UINT32_MAX, "100", NULL, true,
	     "PortXmitDiscards growth per window: transmit_discards."),
	UINT(health_local_link_integrity, 0, UINT32_MAX, "10", NULL, true,
	     "LocalLinkIntegrityErrors growth per window."),
	UINT(health_excessive_buffer_overrun, 0, UINT32_MAX, "10", NULL, true,
	     "ExcessiveBufferOverrunErrors growth per window."),
	UINT(health_vl15_dropped, 0, UINT32_MAX, "100", NULL, true,
	     "VL15Dropped growth per window."),
	UINT(health_xmit_wait_pct, 0, 100, "10", NULL, true,
	     "Per cent of a window a port may spend unable to send "
	     "(PortXmitWait) before it has xmit_wait. 0: not judged."),
	UINT(health_flap_bounces, 0, 1000, "3", NULL, true,
	     "Link bounces (seen by the SM, or LinkDownedCounter growth) per "
	     "window from which a port is flapping. 0: not judged."),
	UINT(health_not_answering_rounds, 0, 1000, "2", NULL, true,
	     "Polling rounds in a row without an answer after which a port is "
	     "not_answering (its totals are kept). 0: not judged."),
	ENUM(health_action, health_actions, "report", true,
	     "What a problem leads to. report: logged, shown by ibsmctl "
	     "health and the metrics. isolate: also route around a link with "
	     "error-counter problems, as if it had failed, while every CA "
	     "still reaches every CA and every switch every LID without it "
	     "and at most health_isolate_max links are isolated (the status "
	     "says degraded meanwhile)."),
	UINT(health_isolate_max, 0, 1024, "1", NULL, true,
	     "Links isolated at once at most."),
	UINT(health_isolate_quiet, 1, 86400, "600", "s", true,
	     "An isolated link is routed over again once its counters have "
	     "stayed quiet this long."),
	STR(metrics_listen, 128, false, "\"\"", true,
	    "Where to serve the Prometheus metrics page (GET /metrics): "
	    "\"localhost:PORT\", \"ADDR:PORT\" (numeric IPv4) or "
	    "\"[ADDR]:PORT\" (IPv6). Empty: off. Nothing listens beyond "
	    "localhost unless configured."),
};

/* Parsed but not yet stored value of one option. */
union conf_val {
	bool b;
	unsigned u;
	uint64_t x;
	int e;
	char *s;
	struct conf_guids g;
};

/* ---- small helpers ---- */

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static void *field_of(struct sm_conf *c, const struct conf_opt *o)
{
	return (char *)c + o->off;
}

static const void *cfield_of(const struct sm_conf *c, const struct conf_opt *o)
{
	return (const char *)c + o->off;
}

__attribute__((format(printf, 3, 4)))
static void errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Untrusted text for a message: at most 40 bytes, non-printables as '?'. */
static const char *shown(const char *s, char out[48])
{
	size_t i;

	for (i = 0; s[i] && i < 40; i++)
		out[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	strcpy(out + i, s[i] ? "..." : "");
	return out;
}

static bool is_hexdigit(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
	       (ch >= 'A' && ch <= 'F');
}

/* [0x]HHHH, 1 to 16 digits; n bytes of s. */
static bool hex_token(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return false;
	for (i = 0; i < n; i++) {
		if (!is_hexdigit(s[i]))
			return false;
		v = (v << 4) | (uint64_t)(s[i] <= '9' ? s[i] - '0' :
					   (s[i] | 0x20) - 'a' + 10);
	}
	*out = v;
	return true;
}

/* ---- value parsers: text -> union conf_val, message in err ---- */

static int parse_bool(const struct conf_opt *o, const char *s,
		      union conf_val *v, char *err, size_t errlen)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	char buf[48];

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			v->b = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	errf(err, errlen, "%s: invalid boolean '%s' (use yes or no)",
	     o->name, shown(s, buf));
	return -1;
}

static int parse_uint(const struct conf_opt *o, const char *s,
		      union conf_val *v, char *err, size_t errlen)
{
	unsigned long long n;
	char buf[48];
	char *end;

	if (s[0] < '0' || s[0] > '9') {
		errf(err, errlen, "%s: invalid number '%s'", o->name, shown(s, buf));
		return -1;
	}
	errno = 0;
	n = strtoull(s, &end, 10);
	if (*end) {
		errf(err, errlen, "%s: invalid number '%s'", o->name, shown(s, buf));
		return -1;
	}
	if (errno == ERANGE || n < o->min || n > o->max) {
		errf(err, errlen, "%s: %s is out of range %llu..%llu", o->name,
		     shown(s, buf), (unsigned long long)o->min,
		     (unsigned long long)o->max);
		return -1;
	}
	v->u = (unsigned)n;
	return 0;
}

static int parse_hex(const struct conf_opt *o, const char *s,
		     union conf_val *v, char *err, size_t errlen)
{
	char buf[48];

	if (!hex_token(s, strlen(s), &v->x)) {
		errf(err, errlen, "%s: invalid hex number '%s'", o->name,
		     shown(s, buf));
		return -1;
	}
	if (v->x > o->max) {
		errf(err, errlen, "%s: %s is out of range 0x0..0x%llx", o->name,
		     shown(s, buf), (unsigned long long)o->max);
		return -1;
	}
	return 0;
}

static int parse_string(const struct conf_opt *o, const char *s,
			union conf_val *v, char *err, size_t errlen)
{
	size_t n = strlen(s);
	char msg[256];

	if (n > o->max) {
		errf(err, errlen, "%s: longer than %llu bytes", o->name,
		     (unsigned long long)o->max);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			errf(err, errlen, "%s: control character in value", o->name);
			return -1;
		}
	}
	if (o->abs_path && s[0] != '/') {
		errf(err, errlen, "%s: must be an absolute path", o->name);
		return -1;
	}
	if (o->check && o->check(s, msg, sizeof(msg)) < 0) {
		errf(err, errlen, "%s: %s", o->name, msg);
		return -1;
	}
	v->s = xstrndup(s, n);
	return 0;
}

static int parse_enum(const struct conf_opt *o, const char *s,
		      union conf_val *v, char *err, size_t errlen)
{
	char buf[48], list[128] = "";

	for (int i = 0; o->values[i]; i++) {
		if (!strcmp(s, o->values[i])) {
			v->e = i;
			return 0;
		}
		if (i)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, o->values[i], sizeof(list) - strlen(list) - 1);
	}
	errf(err, errlen, "%s: invalid value '%s' (one of: %s)", o->name,
	     shown(s, buf), list);
	return -1;
}

/* Add one GUID token to g; checks syntax, 0, duplicates and the cap. */
static int guid_add(const struct conf_opt *o, struct conf_guids *g,
		    const char *tok, size_t n, char *err, size_t errlen)
{
	char buf[48], tmp[48];
	uint64_t x;

	snprintf(tmp, sizeof(tmp), "%.*s", (int)(n < 41 ? n : 41), tok);
	if (!hex_token(tok, n, &x) || x == 0) {
		errf(err, errlen, "%s: invalid GUID '%s'", o->name, shown(tmp, buf));
		return -1;
	}
	for (size_t i = 0; i < g->n; i++) {
		if (g->v[i] == x) {
			errf(err, errlen, "%s: GUID 0x%016llx listed twice",
			     o->name, (unsigned long long)x);
			return -1;
		}
	}
	if (g->n == CONF_MAX_GUIDS) {
		errf(err, errlen, "%s: more than %d GUIDs", o->name, CONF_MAX_GUIDS);
		return -1;
	}
	g->v[g->n++] = x;
	return 0;
}

static int parse_guids(const struct conf_opt *o, const char *s,
		       union conf_val *v, char *err, size_t errlen)
{
	static const char sep[] = ", \t";
	struct conf_guids g = { 0, xmalloc(CONF_MAX_GUIDS * sizeof(uint64_t)) };

	for (s += strspn(s, sep); *s; s += strspn(s, sep)) {
		size_t n = strcspn(s, sep);

		if (guid_add(o, &g, s, n, err, errlen) < 0) {
			free(g.v);
			return -1;
		}
		s += n;
	}
	if (g.n == 0) {
		free(g.v);
		g.v = NULL;
	}
	v->g = g;
	return 0;
}

static int parse_value(const struct conf_opt *o, const char *s,
		       union conf_val *v, char *err, size_t errlen)
{
	switch (o->type) {
	case CONF_BOOL:
		return parse_bool(o, s, v, err, errlen);
	case CONF_UINT:
		return parse_uint(o, s, v, err, errlen);
	case CONF_HEX:
		return parse_hex(o, s, v, err, errlen);
	case CONF_STRING:
		return parse_string(o, s, v, err, errlen);
	case CONF_ENUM:
		return parse_enum(o, s, v, err, errlen);
	case CONF_GUIDS:
		return parse_guids(o, s, v, err, errlen);
	}
	assert(!"bad option type");
	return -1;
}

/* Store v into c, releasing what the field owned before. */
static void store_value(struct sm_conf *c, const struct conf_opt *o,
			const union conf_val *v)
{
	void *f = field_of(c, o);

	switch (o->type) {
	case CONF_BOOL:
		*(bool *)f = v->b;
		break;
	case CONF_UINT:
		*(unsigned *)f = v->u;
		break;
	case CONF_HEX:
		*(uint64_t *)f = v->x;
		break;
	case CONF_STRING:
		free(*(char **)f);
		*(char **)f = v->s;
		break;
	case CONF_ENUM:
		*(int *)f = v->e;
		break;
	case CONF_GUIDS:
		free(((struct conf_guids *)f)->v);
		*(struct conf_guids *)f = v->g;
		break;
	}
}

/* ---- table access ---- */

size_t conf_opt_count(void)
{
	return ARRAY_SIZE(opts);
}

const struct conf_opt *conf_opt_at(size_t i)
{
	return i < ARRAY_SIZE(opts) ? &opts[i] : NULL;
}

const struct conf_opt *conf_opt_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	return NULL;
}

const char *conf_enum_name(const struct conf_opt *o, int v)
{
	if (o->type != CONF_ENUM || v < 0)
		return NULL;
	for (int i = 0; o->values[i]; i++)
		if (i == v)
			return o->values[i];
	return NULL;
}

/* ---- defaults, set, free ---- */

/* Defaults are in file syntax; strip the quotes of a quoted default. */
static void set_default(struct sm_conf *c, const struct conf_opt *o)
{
	char text[1100], err[256];
	union conf_val v;
	size_t n = strlen(o->def);

	assert(n < sizeof(text));
	if (n >= 2 && o->def[0] == '"') {
		memcpy(text, o->def + 1, n - 2);
		text[n - 2] = '\0';
	} else {
		strcpy(text, o->def);
	}
	if (parse_value(o, text, &v, err, sizeof(err)) < 0) {
		fprintf(stderr, "conf: bad default in option table: %s\n", err);
		abort();
	}
	store_value(c, o, &v);
}

void conf_defaults(struct sm_conf *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		set_default(c, &opts[i]);
}

void conf_free(struct sm_conf *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		void *f = field_of(c, &opts[i]);

		if (opts[i].type == CONF_STRING) {
			free(*(char **)f);
			*(char **)f = NULL;
		} else if (opts[i].type == CONF_GUIDS) {
			free(((struct conf_guids *)f)->v);
			memset(f, 0, sizeof(struct conf_guids));
		}
	}
}

int conf_set(struct sm_conf *c, const char *key, const char *value,
	     char *err, size_t errlen)
{
	const struct conf_opt *o = conf_opt_find(key);
	union conf_val v;
	char buf[48];

	if (!o) {
		errf(err, errlen, "unknown key '%s'", shown(key, buf));
		return -1;
	}
	if (parse_value(o, value, &v, err, errlen) < 0)
		return -1;
	store_value(c, o, &v);
	return 0;
}

/* ---- errors ---- */

void conf_errors_init(struct conf_errors *errs)
{
	memset(errs, 0, sizeof(*errs));
}

void conf_errors_free(struct conf_errors *errs)
{
	for (size_t i = 0; i < errs->n; i++)
		free(errs->msg[i]);
	conf_errors_init(errs);
}

void conf_errors_print(const struct conf_errors *errs, FILE *out)
{
	for (size_t i = 0; i < errs->n; i++)
		fprintf(out, "%s\n", errs->msg[i]);
	if (errs->dropped)
		fprintf(out, "(%zu more errors not shown)\n", errs->dropped);
}

/* "name:line: msg" (line 0: "name: msg"), or only counted past the cap. */
__attribute__((format(printf, 4, 5)))
static void add_error(struct conf_errors *errs, const char *name,
		      unsigned line, const char *fmt, ...)
{
	char msg[512], pre[32] = "";
	va_list ap;
	size_t n;

	if (errs->n == CONF_MAX_ERRORS) {
		errs->dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(pre, sizeof(pre), "%u", line);
	n = strlen(name) + strlen(pre) + strlen(msg) + 4;
	errs->msg[errs->n] = xmalloc(n);
	snprintf(errs->msg[errs->n], n, "%s:%s%s%s", name, pre, line ? ": " : " ",
		 msg);
	errs->n++;
}

/* ---- the line parser ---- */

struct parser {
	struct sm_conf *c;
	const char *name;
	struct conf_errors *errs;
	unsigned line;
	int nerr;
	unsigned seen[ARRAY_SIZE(opts)];   /* line an option was set on */
};

__attribute__((format(printf, 2, 3)))
static void perr(struct parser *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	add_error(p->errs, p->name, p->line, "%s", msg);
	p->nerr++;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

static bool is_keychar(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
}

/*
 * Unquote "..." in place (\" and \\ are the only escapes); s points at
 * the opening quote. Returns a pointer past the closing quote, or NULL.
 */
static char *unquote(struct parser *p, const char *key, char *s)
{
	char *out = s;

	for (s++; *s != '"'; s++) {
		if (!*s) {
			perr(p, "%s: missing closing quote", key);
			return NULL;
		}
		if (*s == '\\') {
			s++;
			if (*s != '"' && *s != '\\') {
				perr(p, "%s: invalid escape in quoted value "
				     "(only \\\" and \\\\)", key);
				return NULL;
			}
		}
		*out++ = *s;
	}
	*out = '\0';
	return s + 1;
}

/* Find the value after the key; NULL (error reported) when there is none. */
static char *line_value(struct parser *p, const char *key, char *s)
{
	char *end;

	while (is_blank(*s))
		s++;
	if (*s == '"') {
		char *val = s;

		end = unquote(p, key, s);
		if (!end)
			return NULL;
		while (is_blank(*end))
			end++;
		if (*end && *end != '#') {
			perr(p, "%s: text after closing quote", key);
			return NULL;
		}
		return val;
	}
	end = s + strcspn(s, "#");
	while (end > s && is_blank(end[-1]))
		end--;
	*end = '\0';
	if (!*s) {
		perr(p, "%s: missing value", key);
		return NULL;
	}
	return s;
}

static void set_from_line(struct parser *p, const char *key, char *rest)
{
	const struct conf_opt *o = conf_opt_find(key);
	char err[512], buf[48];
	union conf_val v;
	const char *val;
	size_t i;

	if (!o) {
		perr(p, "unknown key '%s'", shown(key, buf));
		return;
	}
	i = (size_t)(o - opts);
	if (p->seen[i]) {
		perr(p, "duplicate key '%s' (first set on line %u)", key, p->seen[i]);
		return;
	}
	p->seen[i] = p->line;
	val = line_value(p, key, rest);
	if (!val)
		return;
	if (parse_value(o, val, &v, err, sizeof(err)) < 0) {
		perr(p, "%s", err);
		return;
	}
	store_value(p->c, o, &v);
}

/* One NUL-terminated line without its newline. */
static void parse_line(struct parser *p, char *s)
{
	char *key, *end;

	while (is_blank(*s))
		s++;
	if (!*s || *s == '#')
		return;
	key = s;
	while (is_keychar(*s))
		s++;
	end = s;
	while (is_blank(*s))
		s++;
	/* the key must be followed by a blank, '=' or the end of the line */
	if (end == key || (s == end && *s && *s != '=')) {
		char buf[48];

		perr(p, "expected 'key value' or 'key = value', got '%s'",
		     shown(key, buf));
		return;
	}
	if (*s == '=')
		s++;
	*end = '\0';
	set_from_line(p, key, s);
}

int conf_parse_buf(struct sm_conf *c, const char *name, const char *buf,
		   size_t len, struct conf_errors *errs)
{
	struct parser p = { .c = c, .name = name, .errs = errs };
	char line[CONF_MAX_LINE + 2];
	size_t pos = 0;

	conf_defaults(c);
	if (len > CONF_MAX_FILE) {
		add_error(errs, name, 0, "file too large (more than %u bytes)",
			  CONF_MAX_FILE);
		return 1;
	}
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - buf - pos) : len - pos;
		size_t next = pos + n + 1;   /* past the newline, or len + 1 */

		p.line++;
		if (n > 0 && buf[pos + n - 1] == '\r')
			n--;
		if (n > CONF_MAX_LINE)
			perr(&p, "line too long (more than %d bytes)", CONF_MAX_LINE);
		else if (memchr(buf + pos, '\0', n))
			perr(&p, "NUL byte in line");
		else {
			/* a copy, so the value can be cut and unquoted in place */
			memcpy(line, buf + pos, n);
			line[n] = '\0';
			parse_line(&p, line);
		}
		pos = next;
	}
	return p.nerr;
}

/* Read all of fd, up to cap bytes. */
static ssize_t read_all(int fd, char *buf, size_t cap)
{
	size_t got = 0;

	while (got < cap) {
		ssize_t r = read(fd, buf + got, cap - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	return "a special file";
}

/*
 * Only a regular file of at most CONF_MAX_FILE bytes is read, so loading
 * never waits: a FIFO would block open() and read() until somebody writes
 * (and a reload runs on the event loop), a device may never end. stat()
 * first so that nothing else is even opened (opening a tape rewinds it);
 * O_NONBLOCK and fstat() catch a file swapped in between. Returns the open
 * fd, or -1 with an error added.
 */
static int open_regular(const char *path, struct conf_errors *errs)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0)
		goto sys_error;
	if (!S_ISREG(st.st_mode))
		goto not_regular;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		goto sys_error;
	if (fstat(fd, &st) < 0) {
		add_error(errs, path, 0, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		goto not_regular;
	}
	if ((uintmax_t)st.st_size > CONF_MAX_FILE) {
		close(fd);
		add_error(errs, path, 0, "file too large (more than %u bytes)", CONF_MAX_FILE);
		return -1;
	}
	return fd;
sys_error:
	add_error(errs, path, 0, "%s", strerror(errno));
	return -1;
not_regular:
	add_error(errs, path, 0, "%s, not a regular file: refusing to read it",
		  file_kind(st.st_mode));
	return -1;
}

int conf_read_file(const char *path, struct conf_errors *errs, char **buf, size_t *len)
{
	size_t cap = CONF_MAX_FILE + 1;
	struct stat st;
	ssize_t n;
	int fd;

	*buf = NULL;
	*len = 0;
	if (stat(path, &st) < 0 && errno == ENOENT)
		return -ENOENT;
	fd = open_regular(path, errs);
	if (fd < 0)
		return -1;
	/* Up to one byte past the limit, so a file that grew past it since
	 * fstat() still shows as too large. */
	*buf = xmalloc(cap);
	n = read_all(fd, *buf, cap);
	if (n < 0) {
		add_error(errs, path, 0, "%s", strerror(errno));
		free(*buf);
		*buf = NULL;
	}
	close(fd);
	if (n < 0)
		return -1;
	*len = (size_t)n;
	return 0;
}

int conf_load_file(struct sm_conf *c, const char *path, struct conf_errors *errs)
{
	char *buf;
	size_t len;
	int ret = conf_read_file(path, errs, &buf, &len);

	if (ret == -ENOENT)
		add_error(errs, path, 0, "%s", strerror(ENOENT));
	if (ret < 0) {
		conf_defaults(c);
		return 1;
	}
	ret = conf_parse_buf(c, path, buf, len, errs);
	free(buf);
	return ret;
}

/* ---- printing ---- */

/* snprintf-like appender: counts what it could not store. */
struct sbuf {
	char *buf;
	size_t len, pos;
};

__attribute__((format(printf, 2, 3)))
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	size_t room = b->pos < b->len ? b->len - b->pos : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? b->buf + b->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->pos += (size_t)n;
}

static void sb_quoted(struct sbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++)
		sb_printf(b, "%s%c", (*s == '"' || *s == '\\') ? "\\" : "", *s);
	sb_printf(b, "\"");
}

/* Digits needed to print max in hex, so masks print as wide as they are. */
static int hex_width(uint64_t max)
{
	int w = 1;

	while (max >>= 4)
		w++;
	return w;
}

static void sb_value(struct sbuf *b, const struct sm_conf *c,
		     const struct conf_opt *o)
{
	const void *f = cfield_of(c, o);
	const struct conf_guids *g = f;

	switch (o->type) {
	case CONF_BOOL:
		sb_printf(b, "%s", *(const bool *)f ? "yes" : "no");
		break;
	case CONF_UINT:
		sb_printf(b, "%u", *(const unsigned *)f);
		break;
	case CONF_HEX:
		sb_printf(b, "0x%0*llx", hex_width(o->max),
			  (unsigned long long)*(const uint64_t *)f);
		break;
	case CONF_STRING:
		sb_quoted(b, *(char *const *)f);
		break;
	case CONF_ENUM:
		sb_printf(b, "%s", conf_enum_name(o, *(const int *)f));
		break;
	case CONF_GUIDS:
		if (!g->n)
			sb_printf(b, "\"\"");
		for (size_t i = 0; i < g->n; i++)
			sb_printf(b, "%s0x%016llx", i ? "," : "",
				  (unsigned long long)g->v[i]);
		break;
	}
}

int conf_format_value(const struct sm_conf *c, const struct conf_opt *o,
		      char *buf, size_t len)
{
	struct sbuf b = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	sb_value(&b, c, o);
	return (int)b.pos;
}

int conf_opt_syntax(const struct conf_opt *o, char *buf, size_t len)
{
	struct sbuf b = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	switch (o->type) {
	case CONF_BOOL:
		sb_printf(&b, "yes or no");
		break;
	case CONF_UINT:
		sb_printf(&b, "integer %llu..%llu", (unsigned long long)o->min,
			  (unsigned long long)o->max);
		break;
	case CONF_HEX:
		sb_printf(&b, "hex 0x0..0x%llx", (unsigned long long)o->max);
		break;
	case CONF_STRING:
		sb_printf(&b, "%s, at most %llu bytes",
			  o->abs_path ? "absolute path" : "string",
			  (unsigned long long)o->max);
		break;
	case CONF_ENUM:
		sb_printf(&b, "one of");
		for (int i = 0; o->values[i]; i++)
			sb_printf(&b, "%s %s", i ? "," : "", o->values[i]);
		break;
	case CONF_GUIDS:
		sb_printf(&b, "list of up to %d GUIDs", CONF_MAX_GUIDS);
		break;
	}
	if (o->unit)
		sb_printf(&b, " (%s)", o->unit);
	return (int)b.pos;
}

/* Help as "# " comment lines of at most 76 columns. */
static void dump_help(const char *text, FILE *out)
{
	while (*text) {
		size_t n = strlen(text), cut = n;

		if (n > 74) {
			for (cut = 74; cut > 0 && text[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = 74;
		}
		fprintf(out, "# %.*s\n", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}

void conf_dump(const struct sm_conf *c, FILE *out)
{
	char syn[160];

	fprintf(out, "# ibsmd configuration: every option, in the order of "
		"ibsmd.conf(5).\n");
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		const struct conf_opt *o = &opts[i];
		char stackbuf[256], *val = stackbuf;
		int n = conf_format_value(c, o, stackbuf, sizeof(stackbuf));

		if ((size_t)n >= sizeof(stackbuf)) {
			val = xmalloc((size_t)n + 1);
			conf_format_value(c, o, val, (size_t)n + 1);
		}
		conf_opt_syntax(o, syn, sizeof(syn));
		fprintf(out, "\n");
		dump_help(o->help, out);
		fprintf(out, "# %s; default %s%s\n", syn, o->def,
			o->reloadable ? "" : "; needs a restart");
		fprintf(out, "%s %s\n", o->name, val);
		if (val != stackbuf)
			free(val);
	}
}

/* ---- reload diff ---- */

static bool opt_equal(const struct sm_conf *a, const struct sm_conf *b,
		      const struct conf_opt *o)
{
	const void *fa = cfield_of(a, o), *fb = cfield_of(b, o);
	const struct conf_guids *ga = fa, *gb = fb;

	switch (o->type) {
	case CONF_BOOL:
		return *(const bool *)fa == *(const bool *)fb;
	case CONF_UINT:
		return *(const unsigned *)fa == *(const unsigned *)fb;
	case CONF_HEX:
		return *(const uint64_t *)fa == *(const uint64_t *)fb;
	case CONF_STRING:
		return !strcmp(*(char *const *)fa, *(char *const *)fb);
	case CONF_ENUM:
		return *(const int *)fa == *(const int *)fb;
	case CONF_GUIDS:
		return ga->n == gb->n &&
		       (!ga->n || !memcmp(ga->v, gb->v, ga->n * sizeof(*ga->v)));
	}
	assert(!"bad option type");
	return false;
}

int conf_diff(const struct sm_conf *old, const struct sm_conf *nw,
	      struct conf_change *changes, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		if (opt_equal(old, nw, &opts[i]))
			continue;
		if (n < max) {
			changes[n].opt = &opts[i];
			changes[n].needs_restart = !opts[i].reloadable;
		}
		n++;
	}
	return (int)n;
}

/*
 * DOC: the control socket protocol, shared by ibsmd and ibsmctl.
 *
 * AF_UNIX stream socket, one JSON object per line (NDJSON, '\n' ends a
 * message). On connect the daemon sends a hello:
 *   {"hello":"ibsmd","protocol_version":1,"version":"0.1","admin":false}
 * then answers requests
 *   {"id":ID,"cmd":"NAME","args":{...}}
 * with exactly one reply carrying the same id (an integer, a string or null;
 * null when the request had none or could not be parsed):
 *   {"id":ID,"result":{...}}   or   {"id":ID,"error":{"code":"...","message":"..."}}
 * An error about one member of the request or of its args also names it:
 *   {"id":ID,"error":{"code":"invalid_args","message":"...","field":"nod"}}
 * Requests are strict JSON (see ctl/ctl_json.h): no duplicate member names,
 * no "\u0000" in strings, UTF-8, only id, cmd and args at the top level.
 * Subscribed clients also get events, which never carry "id":
 *   {"event":"sweep_done","time":..., "data":{...}}
 *
 * Commands come from CTL_COMMANDS below, the one table both sides expand:
 * the daemon binds each name to its handler, ibsmctl uses the names, access
 * and help offline. Error codes are stable strings: never rename, reuse or
 * remove one, only append (ibsmctl(8) lists them).
 *
 * protocol_version changes only when an existing field changes meaning or
 * goes away; new commands, fields and error codes keep the version.
 */
#ifndef IBSM_CTL_PROTO_H
#define IBSM_CTL_PROTO_H

#define CTL_PROTOCOL_VERSION 1
#define CTL_MAX_REQUEST 65536          /* bytes per request line, '\n' included */
/*
 * What a client may cost the daemon. A request is read only once every
 * reply before it has been taken, and large replies are written a chunk
 * at a time, so a client that never reads holds one reply. On top:
 */
#define CTL_MAX_OUTQ (4u << 20)        /* unsent bytes above which a reply
					* drops the client */
#define CTL_SA_QUERY_MAX 4096          /* records of one "sa query" reply for
					* clients without admin rights (admins:
					* sa_max_records); the reply also stays
					* within CTL_MAX_OUTQ bytes */
#define CTL_MAX_EVQ (1u << 20)         /* same for an event: a subscriber that
					* stopped reading is dropped sooner */
#define CTL_MAX_QUEUED (32u << 20)     /* unsent bytes of all clients, and the
					* fabric copies their replies read: above
					* it the client with most unsent goes */
#define CTL_CLIENT_SHARE 25            /* per cent of the loop's time clients
					* without admin rights get together */
#define CTL_CLIENT_SHARE_SWEEP 5       /* the same while a sweep runs */
#define CTL_DEFAULT_SOCKET "/run/ibsmd/ibsmd.sock"

/* Field names. */
#define CTL_F_HELLO "hello"
#define CTL_F_PROTO "protocol_version"
#define CTL_F_ID "id"
#define CTL_F_CMD "cmd"
#define CTL_F_ARGS "args"
#define CTL_F_RESULT "result"
#define CTL_F_ERROR "error"
#define CTL_F_CODE "code"
#define CTL_F_MESSAGE "message"
#define CTL_F_FIELD "field"          /* in an error: the member at fault */
#define CTL_F_EVENT "event"
#define CTL_F_DATA "data"

enum ctl_access {
	CTL_RO = 0,   /* anybody who can connect */
	CTL_ADMIN = 1, /* uid 0, the daemon's own uid, members of socket_group */
};

/*
 * X(name, access, args, help). args names the arguments in the order
 * ibsmctl maps positional words to them; a leading '?' marks an optional
 * one, a leading '!' a boolean flag (ibsmctl --name); "*" takes arguments
 * of any name (the record fields of "sa query").
 */
#define CTL_COMMANDS(X) \
	X(status, CTL_RO, "", \
	  "SM state, subnet up/degraded/down and its problems (warnings such as the public " \
	  "SM_Key do not degrade it), sweeps, SMP counters, fabric size") \
	X(nodes, CTL_RO, "", \
	  "every node: GUID, type, ports, description, LID") \
	X(switches, CTL_RO, "", \
	  "switches with LID, ports, LinearFDBTop") \
	X(ports, CTL_RO, "?node", \
	  "ports (of one node, or all): state, width, speed, LID, peer") \
	X(links, CTL_RO, "", \
	  "every link once: both ends, state, width, speed") \
	X(lft, CTL_RO, "switch", \
	  "linear forwarding table of one switch (GUID, LID or description)") \
	X(path, CTL_RO, "src dst", \
	  "hop-by-hop route from src to dst (GUID, LID or description; an MLID: the multicast tree)") \
	X(routing, CTL_RO, "", \
	  "routing engine, why it was chosen, verification of host pairs and of every switch " \
	  "to every LID (on a worker: repeat if pending)") \
	X(ar, CTL_RO, "what switch", \
	  "adaptive routing of one switch (what: status or groups)") \
	X(sms, CTL_RO, "", \
	  "the SMs of the subnet: us (state, priority) and every other SM we know") \
	X(handover, CTL_ADMIN, "", \
	  "as master: hand over to the best standby SM (after a sweep that is running)") \
	X(sweep, CTL_ADMIN, "!wait", \
	  "start a heavy sweep that reads every LFT block back and writes changed ones " \
	  "back to our routes; with wait, reply when it is done") \
	X(reroute, CTL_ADMIN, "!wait", \
	  "as master: recompute routes on the current fabric and reprogram changed LFT blocks") \
	X(reload, CTL_ADMIN, "", \
	  "re-read the configuration file and apply what can be applied") \
	X(loglevel, CTL_ADMIN, "?level", \
	  "show or set the log level (err warning notice info debug)") \
	X(subscribe, CTL_RO, "", \
	  "stream events (sweeps, state, links, nodes) on this connection") \
	X(commands, CTL_RO, "", \
	  "this table: names, access, arguments, help") \
	X(sa, CTL_RO, "?what ?attr ?*", \
	  "Subnet Administration: counters per attribute, requests refused for a limit (fair " \
	  "shares) by reason, the hosts' state file, a standby's " \
	  "copy of the master's; with \"query ATTR [FIELD=VALUE...]\" " \
	  "its records (whole tables, from the SA's own code; 4096 a reply without admin rights)") \
	X(mcast, CTL_RO, "?group", \
	  "multicast groups (MGID, MLID, members, tree); one group by MGID or MLID in detail") \
	X(mcast_join, CTL_ADMIN, "group ports ?state ?pkey", \
	  "join ports (GUIDs, names, or all) to a group as the SM (state: full non sendonly sendonly_full)") \
	X(mcast_leave, CTL_ADMIN, "group ports ?state", \
	  "remove ports from a group as the SM") \
	X(tables, CTL_RO, "", \
	  "P_Key, QoS and multicast programming counters of the last sweep and batch") \
	X(health, CTL_RO, "", \
	  "link health: the ports with problems (error counters over their threshold, " \
	  "degraded width or speed, flapping, not answering), each with its far end") \
	X(counters, CTL_RO, "node ?port", \
	  "a node's PMA counters (GUID, LID or description; one port or all): 64-bit " \
	  "totals, data rates per second, saturated counters, problems")

/*
 * X(code, meaning). Stable: only append.
 */
#define CTL_ERRORS(X) \
	X(parse_error, "the request line is not strict JSON (RFC 8259, UTF-8, no duplicate " \
	  "member names, no \\u0000 in strings, nesting up to 16)") \
	X(invalid_request, "valid JSON but not a request object (id, cmd, args)") \
	X(unknown_command, "no such command") \
	X(invalid_args, "an argument is missing, unknown or malformed") \
	X(permission_denied, "the command needs admin rights") \
	X(not_found, "the named node, switch or port does not exist") \
	X(not_ready, "no fabric or routes yet (first sweep not done)") \
	X(too_large, "the request exceeds the size limit") \
	X(failed, "the command ran and failed (see message)") \
	X(busy, "the daemon cannot take the request or connection now") \
	X(internal, "a bug in ibsmd") \
	X(idle_timeout, "the connection was idle too long and is closed") \
	X(reply_too_large, "the reply would pass its limit (records or bytes): narrow the request") \
	X(not_master, "only the master SM writes to the fabric; this one is not master")

#define CTL_ERR_ENUM(code, meaning) CTL_E_##code,
enum ctl_error { CTL_ERRORS(CTL_ERR_ENUM) CTL_E_COUNT };
#undef CTL_ERR_ENUM

/* Event names. */
#define CTL_EV_SWEEP_STARTED "sweep_started"
#define CTL_EV_SWEEP_DONE "sweep_done"
#define CTL_EV_STATE "state_changed"
#define CTL_EV_SUBNET "subnet_changed"
#define CTL_EV_NODE_ADDED "node_added"
#define CTL_EV_NODE_REMOVED "node_removed"
#define CTL_EV_LINK_UP "link_up"
#define CTL_EV_LINK_DOWN "link_down"
#define CTL_EV_RELOAD "config_reloaded"
#define CTL_EV_PORT "port_event"
#define CTL_EV_PROBLEMS "problems_changed"
#define CTL_EV_HEALTH "health"

#endif

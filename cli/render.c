/*
 * DOC: ibsmctl's renderers (see render.h).
 *
 * One small function per command, chosen from a table by command name.
 * They read the reply defensively: a missing field prints as "-", never
 * crashes, because the daemon may be newer or older than this ibsmctl.
 */
#define _GNU_SOURCE 1 /* qsort_r */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/render.h"

static json_object *get(json_object *o, const char *k)
{
	json_object *v = NULL;

	if (o && json_object_is_type(o, json_type_object))
		json_object_object_get_ex(o, k, &v);
	return v;
}

static const char *str(json_object *o, const char *k)
{
	json_object *v = get(o, k);

	return v ? json_object_get_string(v) : "-";
}

static size_t alen(json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static void print_json(json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
}

static void r_problems(json_object *a)
{
	if (!alen(a))
		return;
	printf("problems:\n");
	for (size_t i = 0; i < alen(a); i++) {
		json_object *p = json_object_array_get_idx(a, i);

		if (!strcmp(str(p, "kind"), "more"))
			printf("  ... and %s more\n", str(p, "text"));
		else
			printf("  %-15s %s%s\n", str(p, "kind"), str(p, "text"),
			       json_object_get_boolean(get(p, "warning")) ? " (warning)" : "");
	}
}

/* "a, b, c" of an array of strings. */
static void print_list(json_object *a)
{
	for (size_t i = 0; i < alen(a); i++)
		printf("%s%s", i ? ", " : "", json_object_get_string(json_object_array_get_idx(a, i)));
}

static void r_health_summary(json_object *h)
{
	if (!h)
		return;
	printf("health:       %s ports watched, %s, round %s took %s ms", str(h, "ports_watched"),
	       json_object_get_boolean(get(h, "polling")) ? "polling" : "not polling",
	       str(h, "rounds"), str(h, "last_round_ms"));
	json_object_object_foreach(get(h, "problems"), k, v)
		printf(", %s %s", json_object_get_string(v), k);
	printf("\n");
}

static void r_health(json_object *r)
{
	json_object *a = get(r, "ports");

	r_health_summary(r);
	if (!alen(a)) {
		printf("no port has a problem\n");
		return;
	}
	printf("%-18s %4s %-16s %-18s %4s  %s\n", "GUID", "PORT", "NODE", "PEER", "PORT",
	       "PROBLEMS");
	for (size_t i = 0; i < alen(a); i++) {
		json_object *p = json_object_array_get_idx(a, i);

		printf("%-18s %4s %-16s %-18s %4s  ", str(p, "guid"), str(p, "port"), str(p, "node"),
		       str(p, "peer_guid"), str(p, "peer_port"));
		print_list(get(p, "problems"));
		printf("\n");
	}
}

static void r_counters(json_object *r)
{
	json_object *a = get(r, "ports");

	printf("%s %s\n", str(r, "guid"), str(r, "node"));
	for (size_t i = 0; i < alen(a); i++) {
		json_object *p = json_object_array_get_idx(a, i), *rate = get(p, "per_second");

		printf("port %s (LID %s)\n", str(p, "port"), str(p, "lid"));
		json_object_object_foreach(get(p, "totals"), k, v) {
			printf("  %-32s %20s", k, json_object_get_string(v));
			if (get(rate, k))
				printf("  %s/s", str(rate, k));
			printf("\n");
		}
		if (alen(get(p, "saturated"))) {
			printf("  saturated (totals are lower bounds): ");
			print_list(get(p, "saturated"));
			printf("\n");
		}
		if (alen(get(p, "problems"))) {
			printf("  problems: ");
			print_list(get(p, "problems"));
			printf("\n");
		}
	}
}

static void r_sm_others(json_object *sm)
{
	json_object *a = get(sm, "others");

	for (size_t i = 0; i < alen(a); i++) {
		json_object *p = json_object_array_get_idx(a, i);

		printf("  SM %s LID %s priority %s %s%s%s, last answer %s ms ago\n", str(p, "guid"),
		       str(p, "lid"), str(p, "priority"), str(p, "state"),
		       json_object_get_boolean(get(p, "answering")) ? "" : " (not answering)",
		       json_object_get_boolean(get(p, "foreign_key")) ? " (other SM_Key: ignored)" : "",
		       get(p, "seen_ms_ago") ? str(p, "seen_ms_ago") : "-");
	}
}

static void r_sms(json_object *r)
{
	printf("us: %s, priority %s, GUID %s, ActCount %s%s%s\n", str(r, "state"),
	       str(r, "priority"), str(r, "guid"), str(r, "act_count"),
	       get(r, "master") ? ", following " : "", get(r, "master") ? str(r, "master") : "");
	r_sm_others(r);
}

static void r_status(json_object *r)
{
	json_object *ls = get(r, "last_sweep"), *sm = get(r, "smps"), *f = get(r, "fabric");
	json_object *t = get(ls, "time");
	char when[64] = "-";

	if (t) {
		time_t tt = (time_t)json_object_get_double(t);
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&tt, &tm));
	}
	printf("state:        %s%s%s (priority %s)\n", str(r, "state"),
	       get(get(r, "sm"), "master") ? ", master " : "",
	       get(get(r, "sm"), "master") ? str(get(r, "sm"), "master") : "",
	       str(get(r, "sm"), "priority"));
	r_sm_others(get(r, "sm"));
	if (get(r, "subnet"))
		printf("subnet:       %s\n", str(r, "subnet"));
	else
		printf("subnet:       %s\n", json_object_get_boolean(get(r, "subnet_up")) ? "up" : "NOT up");
	printf("sweeps:       %s%s\n", str(r, "sweeps"),
	       json_object_get_boolean(get(r, "sweeping")) ? " (sweeping now)" : "");
	printf("last sweep:   %s, %s ms, %s errors\n", when, str(ls, "duration_ms"), str(ls, "errors"));
	printf("SMPs:         %s sent, %s failed, %s timeouts, %s retries\n", str(sm, "sent"),
	       str(sm, "failed"), str(sm, "timeouts"), str(sm, "retries"));
	printf("fabric:       %s nodes (%s switches, %s CAs), %s links\n", str(f, "nodes"),
	       str(f, "switches"), str(f, "cas"), str(f, "links"));
	printf("SM port:      %s port %s, GUID %s, LID %s\n", str(r, "ca"), str(r, "port"),
	       str(r, "port_guid"), str(r, "sm_lid"));
	printf("routing:      %s, %s LIDs assigned\n", str(r, "routing_engine"), str(r, "lids"));
	r_health_summary(get(r, "health"));
	r_problems(get(r, "problems"));
}

static void r_nodes_key(json_object *r, const char *key, bool sw)
{
	json_object *a = get(r, key);

	printf("%-18s %-6s %5s %5s %4s%s  %s\n", "GUID", "TYPE", "LID", "PORTS", "HOPS",
	       sw ? " LINTOP" : "", "DESCRIPTION");
	for (size_t i = 0; i < alen(a); i++) {
		json_object *n = json_object_array_get_idx(a, i);

		printf("%-18s %-6s %5s %5s %4s", str(n, "guid"), str(n, "type"), str(n, "lid"),
		       str(n, "ports"), str(n, "hops"));
		if (sw)
			printf(" %6s", str(n, "lin_top"));
		printf("  %s\n", str(n, "desc"));
	}
}

static void r_nodes(json_object *r)
{
	r_nodes_key(r, "nodes", false);
}

static void r_switches(json_object *r)
{
	r_nodes_key(r, "switches", true);
}

static void r_ports(json_object *r)
{
	json_object *a = get(r, "ports");

	printf("%-18s %4s %-7s %-5s %-5s %5s  %-24s %s\n", "GUID", "PORT", "STATE", "WIDTH",
	       "SPEED", "LID", "PEER", "DESCRIPTION");
	for (size_t i = 0; i < alen(a); i++) {
		json_object *p = json_object_array_get_idx(a, i), *peer = get(p, "peer");
		char pb[96] = "-";

		if (peer)
			snprintf(pb, sizeof(pb), "%s[%s]", str(peer, "desc"), str(peer, "port"));
		printf("%-18s %4s %-7s %-5s %-5s %5s  %-24s %s\n", str(p, "guid"), str(p, "port"),
		       str(p, "state"), str(p, "width"), str(p, "speed"), str(p, "lid"), pb,
		       str(p, "desc"));
	}
}

static void r_links(json_object *r)
{
	json_object *a = get(r, "links");

	for (size_t i = 0; i < alen(a); i++) {
		json_object *l = json_object_array_get_idx(a, i);
		json_object *f = get(l, "from"), *t = get(l, "to");

		printf("\"%s\"[%s] %s -- \"%s\"[%s] %s  %s %s %s\n", str(f, "desc"), str(f, "port"),
		       str(f, "guid"), str(t, "desc"), str(t, "port"), str(t, "guid"),
		       str(l, "state"), str(l, "width"), str(l, "speed"));
	}
}

static void r_lft(json_object *r)
{
	json_object *a = get(r, "entries");

	printf("# switch %s \"%s\" LID %s, top %s, source %s\n", str(r, "guid"), str(r, "desc"),
	       str(r, "lid"), str(r, "top"), str(r, "source"));
	printf("%5s %4s\n", "LID", "PORT");
	for (size_t i = 0; i < alen(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		printf("%5s %4s\n", json_object_get_string(json_object_array_get_idx(e, 0)),
		       json_object_get_string(json_object_array_get_idx(e, 1)));
	}
}

static void print_ints(json_object *a)
{
	for (size_t k = 0; k < alen(a); k++)
		printf("%s%s", k ? "," : "", json_object_get_string(json_object_array_get_idx(a, k)));
	if (!alen(a))
		printf("-");
}

/* path to an MLID: the switches the packet floods and the ports reached. */
static void r_mpath(json_object *r)
{
	json_object *sw = get(r, "switches"), *got = get(r, "reached"), *miss = get(r, "missed");

	printf("# %s -> MLID %s (%s): %zu switches, %zu ports reached\n", str(r, "src"),
	       str(r, "mlid"), str(r, "group"), alen(sw), alen(got));
	for (size_t i = 0; i < alen(sw); i++) {
		json_object *h = json_object_array_get_idx(sw, i);

		printf("  %s \"%s\" in %-3s out ", str(h, "guid"), str(h, "desc"), str(h, "in_port"));
		print_ints(get(h, "out_ports"));
		printf("\n");
	}
	for (size_t i = 0; i < alen(got); i++) {
		json_object *p = json_object_array_get_idx(got, i);

		printf("  -> %s \"%s\" port %s\n", str(p, "guid"), str(p, "desc"), str(p, "port"));
	}
	for (size_t i = 0; i < alen(miss); i++)
		printf("  MISSED %s\n", json_object_get_string(json_object_array_get_idx(miss, i)));
	if (!json_object_get_boolean(get(r, "complete")))
		printf("INCOMPLETE: %s\n", str(r, "problem"));
}

static void r_path(json_object *r)
{
	json_object *a = get(r, "hops");

	if (get(r, "mlid")) {
		r_mpath(r);
		return;
	}
	printf("# %s -> %s (DLID %s)\n", str(get(r, "src"), "desc"), str(get(r, "dst"), "desc"),
	       str(r, "dlid"));
	for (size_t i = 0; i < alen(a); i++) {
		json_object *h = json_object_array_get_idx(a, i);

		json_object *arp = get(h, "ar_ports");

		printf("%2zu  in %-4s out %-4s %-6s %s \"%s\"", i, str(h, "in_port"),
		       str(h, "out_port"), str(h, "type"), str(h, "guid"), str(h, "desc"));
		for (size_t k = 0; k < alen(arp); k++)
			printf("%s%s", k ? "," : "  AR ports ",
			       json_object_get_string(json_object_array_get_idx(arp, k)));
		printf("\n");
	}
	if (!json_object_get_boolean(get(r, "complete")))
		printf("INCOMPLETE: %s\n", str(r, "problem"));
}

static void r_ar(json_object *r)
{
	json_object *ar = get(r, "ar"), *g = get(r, "groups");

	printf("%s \"%s\": AR %s, %s", str(r, "guid"), str(r, "desc"),
	       json_object_get_boolean(get(ar, "supported")) ? "supported" : "not supported",
	       json_object_get_boolean(get(ar, "enabled")) ? "enabled" : "disabled");
	if (get(ar, "reason"))
		printf(" (%s)", str(ar, "reason"));
	printf("; group_cap %s, groups %s, errors %s, last error %s\n", str(ar, "group_cap"),
	       str(ar, "groups"), str(ar, "errors"), str(ar, "last_error"));
	for (size_t i = 0; i < alen(g); i++) {
		json_object *e = json_object_array_get_idx(g, i), *ports = get(e, "ports");

		printf("  group %-5s leaf %s ports", str(e, "group"), str(e, "leaf"));
		for (size_t k = 0; k < alen(ports); k++)
			printf(" %s", json_object_get_string(json_object_array_get_idx(ports, k)));
		printf("\n");
	}
}

static void r_routing(json_object *r)
{
	json_object *v = get(r, "verify");

	printf("engine:  %s\nwhy:     %s\ntop LID: %s\n", str(r, "engine"), str(r, "why"), str(r, "top"));
	if (!v) {
		printf("verify:  %s\n", str(r, "verify_note"));
		return;
	}
	printf("verify:  %s\n", json_object_get_boolean(get(v, "ok")) ? "OK" : "PROBLEMS");
	json_object_object_foreach(v, k, val)
		if (strcmp(k, "ok"))
			printf("  %-14s %s\n", k, json_object_get_string(val));
}

static void print_names(const char *label, json_object *a)
{
	printf("%s:", label);
	for (size_t i = 0; i < alen(a); i++)
		printf(" %s", json_object_get_string(json_object_array_get_idx(a, i)));
	printf("%s\n", alen(a) ? "" : " (none)");
}

static void r_reload(json_object *r)
{
	printf("reloaded %s\n", str(r, "file"));
	print_names("applied", get(r, "applied"));
	print_names("stored, applied at restart", get(r, "applied_at_restart"));
	print_names("changed, need a restart (not applied)", get(r, "restart_needed"));
}

static void r_loglevel(json_object *r)
{
	printf("log level %s (was %s)\n", str(r, "level"), str(r, "previous"));
}

static void r_sweep(json_object *r)
{
	if (get(r, "subnet_up"))
		printf("sweep %s done in %s ms: subnet %s, %s errors\n", str(r, "sweep"),
		       str(r, "duration_ms"), json_object_get_boolean(get(r, "subnet_up")) ? "up" : "NOT up",
		       str(r, "errors"));
	else
		printf("sweep %s started%s\n", str(r, "sweep"),
		       json_object_get_boolean(get(r, "queued_after_running")) ?
		       " (after the one running now)" : "");
	if (get(r, "note"))
		printf("note: %s\n", str(r, "note"));
}

/* The connection limits in force (older daemons do not send them). */
static void r_limits(json_object *l)
{
	if (!l)
		return;
	printf("limits: %s connections, %s of them for admins, %s per other user; "
	       "idle ones closed after %s s;\n", str(l, "max_clients"), str(l, "admin_clients"),
	       str(l, "max_clients_per_uid"), str(l, "client_idle_timeout"));
	printf("  requests up to %s bytes, read once earlier replies are read; a client is "
	       "dropped with %s bytes of replies unread\n", str(l, "max_request_bytes"),
	       str(l, "max_unread_bytes"));
}

static void r_commands(json_object *r)
{
	json_object *a = get(r, "commands");

	printf("ibsmd protocol %s; commands:\n", str(r, "protocol_version"));
	for (size_t i = 0; i < alen(a); i++) {
		json_object *c = json_object_array_get_idx(a, i);
		bool admin = strcmp(str(c, "access"), "admin") == 0;

		printf("  %-11s %-8s %s%s\n", str(c, "name"), str(c, "args"), str(c, "help"),
		       admin ? " [admin]" : "");
	}
	printf("local: help, watch, topology [--dot], completion bash\n");
	r_limits(get(r, "limits"));
}

/* The state file, and a standby's copy of the master's. */
static void r_sa_clients(json_object *k)
{
	json_object *c = get(k, "standby_copy");

	if (!k)
		return;
	/* the times are doubles: three decimals, as the sweep's duration */
	printf("state file: %s saves (last %.3f ms, slowest %.3f ms)%s%s\n", str(k, "saves"),
	       json_object_get_double(get(k, "save_ms_last")),
	       json_object_get_double(get(k, "save_ms_max")),
	       json_object_get_boolean(get(k, "unsaved")) ? ", a change to write" : "",
	       json_object_get_boolean(get(k, "save_failed")) ? ", LAST WRITE FAILED" : "");
	if (c && json_object_get_boolean(get(c, "following")))
		printf("standby copy: %s (%s groups, %s memberships, %s services, %s subscriptions; "
		       "%s rounds, %s queries, %s failed)\n",
		       !json_object_get_boolean(get(c, "copy")) ? "none" :
		       json_object_get_boolean(get(c, "current")) ? "current" : "stale",
		       str(c, "groups"), str(c, "memberships"), str(c, "services"),
		       str(c, "subscriptions"), str(c, "rounds"), str(c, "queries"), str(c, "failed"));
}

/* Requests refused for a limit, the reasons that counted any. */
static void r_sa_refused(json_object *o)
{
	bool any = false;

	if (!o)
		return;
	json_object_object_foreach(o, key, val) {
		if (!json_object_get_int64(val))
			continue;
		printf("%s %s %s", any ? "," : "refused for a limit:", key, json_object_get_string(val));
		any = true;
	}
	printf("%s\n", any ? "" : "refused for a limit: none");
}

static void r_sa_counters(json_object *r)
{
	json_object *a = get(r, "attributes"), *t = get(r, "totals");

	printf("SA %s; %s requests, %s not answered (not master), %s refused (SM_Key), "
	       "%s busy, %s malformed\n",
	       json_object_get_boolean(get(r, "serving")) ? "serving" : "NOT serving (not master)",
	       str(t, "received"), str(t, "not_master"), str(t, "denied"), str(t, "busy"),
	       str(t, "malformed"));
	printf("subscriptions %s, services %s, reports sent %s, acked %s, dropped %s; "
	       "subscribers dropped %s; traps 66/67 past a host's rate %s; of ports that left: "
	       "%s gone\n", str(t, "subscriptions"), str(t, "services"), str(t, "reports_sent"),
	       str(t, "reports_acked"), str(t, "reports_dropped"), str(t, "subscribers_dropped"),
	       str(t, "notices_dropped"), str(t, "departed"));
	r_sa_refused(get(r, "refused"));
	r_sa_clients(get(r, "clients"));
	printf("%-32s %10s %8s %10s %8s %8s\n", "attribute", "requests", "errors", "records",
	       "p50_us", "p99_us");
	for (size_t i = 0; i < alen(a); i++) {
		json_object *o = json_object_array_get_idx(a, i);

		if (json_object_get_int64(get(o, "requests")) == 0)
			continue;
		printf("%-32s %10s %8s %10s %8s %8s\n", str(o, "attribute"), str(o, "requests"),
		       str(o, "errors"), str(o, "records"), str(o, "p50_us"), str(o, "p99_us"));
	}
}

/* One record: its fields in order, arrays on one line. */
static void r_sa_record(json_object *rec)
{
	json_object_object_foreach(rec, key, val) {
		if (json_object_is_type(val, json_type_array))
			printf("  %-28s %s\n", key,
			       json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN));
		else
			printf("  %-28s %s\n", key, json_object_get_string(val));
	}
}

static void r_sa(json_object *r)
{
	json_object *a = get(r, "records");

	if (!get(r, "records")) {
		r_sa_counters(r);
		return;
	}
	for (size_t i = 0; i < alen(a); i++) {
		printf("%s %zu\n", str(r, "attribute"), i + 1);
		r_sa_record(json_object_array_get_idx(a, i));
	}
	printf("%s records%s\n", str(r, "count"),
	       json_object_get_int64(get(r, "pending")) ? "; port tables are being read, ask again" : "");
}

static void r_group_line(json_object *g)
{
	json_object *t = get(g, "tree");

	printf("%-40s %-6s %-6s %-6s %3s %3s %2s %5s %5s", str(g, "mgid"), str(g, "mlid"),
	       str(g, "pkey"), str(g, "qkey"), str(g, "mtu"), str(g, "rate"), str(g, "sl"),
	       str(g, "members"), str(g, "full_members"));
	if (t)
		printf("  root %s, %s switches, depth %s, %s missed", str(t, "root"), str(t, "switches"),
		       str(t, "depth"), str(t, "members_missed"));
	printf("%s\n", json_object_get_boolean(get(g, "well_known")) ? "  (partitions)" : "");
}

static void r_mcast_detail(json_object *r)
{
	json_object *m = get(r, "member_list"), *t = get(r, "tree_switches");

	r_group_line(r);
	printf("members:\n");
	for (size_t i = 0; i < alen(m); i++) {
		json_object *e = json_object_array_get_idx(m, i);

		printf("  %s \"%s\" port %s join_state %s%s\n", str(e, "guid"), str(e, "desc"),
		       str(e, "port"), str(e, "join_state"),
		       json_object_get_boolean(get(e, "proxy")) ? " (proxy)" : "");
	}
	printf("tree (ports as the switches hold them):\n");
	for (size_t i = 0; i < alen(t); i++) {
		json_object *e = json_object_array_get_idx(t, i);

		printf("  depth %-2s %s \"%s\" up %-3s ports ", str(e, "depth"), str(e, "guid"),
		       str(e, "desc"), str(e, "up_port"));
		print_ints(get(e, "ports"));
		printf("\n");
	}
}

static void r_mcast(json_object *r)
{
	json_object *g = get(r, "groups"), *s = get(r, "stats");

	if (!g) {
		r_mcast_detail(r);
		return;
	}
	printf("%-40s %-6s %-6s %-6s %3s %3s %2s %5s %5s\n", "MGID", "MLID", "P_Key", "Q_Key", "MTU",
	       "RT", "SL", "MEMB", "FULL");
	for (size_t i = 0; i < alen(g); i++)
		r_group_line(json_object_array_get_idx(g, i));
	printf("%s groups; %s batches; last: %s MFT blocks written, programmed %.1f ms after the "
	       "first change\n", str(s, "groups"), str(s, "batches"),
	       str(get(s, "last_batch"), "blocks_written"),
	       json_object_get_double(get(get(s, "last_batch"), "programmed_ms")));
}

static void r_mcast_jl(json_object *r)
{
	json_object *e = get(r, "refused");

	printf("%s %s port(s), %zu refused\n", get(r, "joined") ? "joined" : "left",
	       get(r, "joined") ? str(r, "joined") : str(r, "left"), alen(e));
	for (size_t i = 0; i < alen(e); i++)
		printf("  %s: %s\n", str(json_object_array_get_idx(e, i), "port"),
		       str(json_object_array_get_idx(e, i), "status"));
}

static const struct {
	const char *cmd;
	void (*fn)(json_object *);
} renderers[] = {
	{ "mcast", r_mcast }, { "mcast_join", r_mcast_jl }, { "mcast_leave", r_mcast_jl },
	{ "status", r_status }, { "sms", r_sms }, { "nodes", r_nodes }, { "switches", r_switches },
	{ "ports", r_ports }, { "links", r_links }, { "lft", r_lft }, { "path", r_path },
	{ "routing", r_routing }, { "ar", r_ar }, { "reload", r_reload }, { "loglevel", r_loglevel },
	{ "sweep", r_sweep }, { "reroute", r_sweep }, { "commands", r_commands },
	{ "sa", r_sa }, { "health", r_health }, { "counters", r_counters },
};

void render_result(const char *cmd, json_object *result)
{
	for (size_t i = 0; i < sizeof(renderers) / sizeof(renderers[0]); i++) {
		if (strcmp(renderers[i].cmd, cmd) == 0) {
			renderers[i].fn(result);
			return;
		}
	}
	print_json(result);
}

void render_error(json_object *reply)
{
	json_object *e = get(reply, CTL_F_ERROR);

	fprintf(stderr, "ibsmctl: %s: %s\n", str(e, CTL_F_CODE), str(e, CTL_F_MESSAGE));
}

void render_event(json_object *ev)
{
	json_object *d = get(ev, CTL_F_DATA);
	time_t t = (time_t)json_object_get_double(get(ev, "time"));
	char when[32];
	struct tm tm;

	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&t, &tm));
	printf("%s %s", when, str(ev, CTL_F_EVENT));
	if (d && json_object_is_type(d, json_type_object)) {
		json_object_object_foreach(d, k, v)
			printf(" %s=%s", k, v ? json_object_get_string(v) : "null");
	}
	printf("\n");
}

/* ---- topology ---- */

struct tnode {
	const char *guid, *desc;
	bool sw;
	int level;        /* switches: hops from the nearest leaf; -1 unknown */
	int leaf;         /* CAs: index of the switch they hang off, -1 none */
};

struct topo_view {
	struct tnode *n;
	size_t nn;
	size_t *order;    /* indices sorted by guid, for lookup */
};

static int by_guid(const void *a, const void *b, void *arg)
{
	const struct topo_view *v = arg;

	return strcmp(v->n[*(const size_t *)a].guid, v->n[*(const size_t *)b].guid);
}

static long find(const struct topo_view *v, const char *guid)
{
	size_t lo = 0, hi = v->nn;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(v->n[v->order[mid]].guid, guid);

		if (c == 0)
			return (long)v->order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void view_build(struct topo_view *v, json_object *nodes)
{
	json_object *a = get(nodes, "nodes");

	v->nn = alen(a);
	v->n = calloc(v->nn + 1, sizeof(*v->n));
	v->order = calloc(v->nn + 1, sizeof(*v->order));
	if (!v->n || !v->order) {
		fprintf(stderr, "ibsmctl: out of memory\n");
		exit(3);
	}
	for (size_t i = 0; i < v->nn; i++) {
		json_object *n = json_object_array_get_idx(a, i);

		v->n[i] = (struct tnode){ str(n, "guid"), str(n, "desc"),
					  strcmp(str(n, "type"), "switch") == 0, -1, -1 };
		v->order[i] = i;
	}
	qsort_r(v->order, v->nn, sizeof(*v->order), by_guid, v);
}

static bool link_ends(const struct topo_view *v, json_object *l, long *a, long *b)
{
	*a = find(v, str(get(l, "from"), "guid"));
	*b = find(v, str(get(l, "to"), "guid"));
	return *a >= 0 && *b >= 0;
}

/* Leaves (switches with a CA) are level 0; every other switch is one more
 * than its lowest neighbour: relax until nothing changes (a BFS would need
 * adjacency lists; fabrics are shallow, so few passes). */
static void view_levels(struct topo_view *v, json_object *la)
{
	bool changed = true;
	long a, b;

	for (size_t i = 0; i < alen(la); i++) {
		if (!link_ends(v, json_object_array_get_idx(la, i), &a, &b))
			continue;
		if (v->n[a].sw && !v->n[b].sw) {
			v->n[a].level = 0;
			v->n[b].leaf = (int)a;
		} else if (v->n[b].sw && !v->n[a].sw) {
			v->n[b].level = 0;
			v->n[a].leaf = (int)b;
		}
	}
	while (changed) {
		changed = false;
		for (size_t i = 0; i < alen(la); i++) {
			if (!link_ends(v, json_object_array_get_idx(la, i), &a, &b) ||
			    !v->n[a].sw || !v->n[b].sw)
				continue;
			for (int k = 0; k < 2; k++, a ^= b, b ^= a, a ^= b) {
				if (v->n[a].level >= 0 &&
				    (v->n[b].level < 0 || v->n[b].level > v->n[a].level + 1)) {
					v->n[b].level = v->n[a].level + 1;
					changed = true;
				}
			}
		}
	}
}

static int max_level(const struct topo_view *v)
{
	int m = 0;

	for (size_t i = 0; i < v->nn; i++)
		if (v->n[i].sw && v->n[i].level > m)
			m = v->n[i].level;
	return m;
}

static void dot_quote(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static void dot_switches(const struct topo_view *v)
{
	for (int lvl = -1; lvl <= max_level(v); lvl++) {
		size_t n = 0;

		for (size_t i = 0; i < v->nn; i++)
			n += v->n[i].sw && v->n[i].level == lvl;
		if (!n)
			continue;
		printf("  subgraph level_%d {\n    rank=same;\n", lvl < 0 ? 99 : lvl);
		for (size_t i = 0; i < v->nn; i++) {
			if (!v->n[i].sw || v->n[i].level != lvl)
				continue;
			printf("    ");
			dot_quote(v->n[i].guid);
			printf(" [shape=box, label=");
			dot_quote(v->n[i].desc);
			printf("];\n");
		}
		printf("  }\n");
	}
}

static void dot_hosts(const struct topo_view *v)
{
	for (size_t s = 0; s < v->nn; s++) {
		bool open = false;

		for (size_t i = 0; i < v->nn; i++) {
			if (v->n[i].sw || v->n[i].leaf != (int)s)
				continue;
			if (!open)
				printf("  subgraph cluster_hosts_%zu {\n    style=dotted; label=\"\";\n", s);
			open = true;
			printf("    ");
			dot_quote(v->n[i].guid);
			printf(" [shape=ellipse, label=");
			dot_quote(v->n[i].desc);
			printf("];\n");
		}
		if (open)
			printf("  }\n");
	}
}

static void dot_links(const struct topo_view *v, json_object *la)
{
	long a, b;

	for (size_t i = 0; i < alen(la); i++) {
		json_object *l = json_object_array_get_idx(la, i);
		bool up = strcmp(str(l, "state"), "active") == 0;

		if (!link_ends(v, l, &a, &b))
			continue;
		printf("  ");
		dot_quote(v->n[a].guid);
		printf(" -- ");
		dot_quote(v->n[b].guid);
		printf(" [taillabel=\"%s\", headlabel=\"%s\"%s];\n", str(get(l, "from"), "port"),
		       str(get(l, "to"), "port"), up ? "" : ", color=red, style=dashed");
	}
}

static void text_topology(const struct topo_view *v)
{
	for (int lvl = max_level(v); lvl >= -1; lvl--) {
		size_t n = 0;

		for (size_t i = 0; i < v->nn; i++)
			n += v->n[i].sw && v->n[i].level == lvl;
		if (!n)
			continue;
		if (lvl < 0)
			printf("not connected to hosts (%zu switches):\n", n);
		else
			printf("level %d (%zu switches):\n", lvl, n);
		for (size_t i = 0; i < v->nn; i++) {
			size_t hosts = 0;

			if (!v->n[i].sw || v->n[i].level != lvl)
				continue;
			for (size_t k = 0; k < v->nn; k++)
				hosts += !v->n[k].sw && v->n[k].leaf == (int)i;
			printf("  %s \"%s\"", v->n[i].guid, v->n[i].desc);
			if (hosts)
				printf(" (%zu hosts)", hosts);
			printf("\n");
		}
	}
}

void render_topology(json_object *nodes, json_object *links, bool dot)
{
	struct topo_view v = { 0 };
	json_object *la = get(links, "links");

	view_build(&v, nodes);
	view_levels(&v, la);
	if (dot) {
		printf("graph fabric {\n  rankdir=BT;\n  node [fontsize=10];\n  edge [fontsize=8];\n");
		dot_switches(&v);
		dot_hosts(&v);
		dot_links(&v, la);
		printf("}\n");
	} else {
		text_topology(&v);
	}
	free(v.n);
	free(v.order);
}

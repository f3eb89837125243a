/*
 * DOC: ibsmd configuration.
 *
 * One static option table (conf.c) drives everything: defaults, parsing of
 * the file and of -o overrides, validation, the canonical dump, the reload
 * diff and the option list of ibsmd.conf(5). Adding an option means adding
 * a field to struct sm_conf and one row to the table, nothing else.
 *
 * The file is untrusted text: every error is reported as "FILE:LINE: msg",
 * parsing never stops at the first one, and sizes are capped.
 */
#ifndef IBSM_CONF_H
#define IBSM_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONF_MAX_LINE 4096         /* bytes per line, newline excluded */
#define CONF_MAX_FILE (1u << 20)   /* bytes per file */
#define CONF_MAX_ERRORS 20         /* messages kept; the rest are counted */
#define CONF_MAX_GUIDS 200         /* entries in a GUID list */

/* Enum options are stored as an index into the option's value list; these
 * constants name the indices (conf.c checks that the two orders agree). */
enum conf_log_level {
	CONF_LOG_ERR,
	CONF_LOG_WARNING,
	CONF_LOG_NOTICE,
	CONF_LOG_INFO,
	CONF_LOG_DEBUG,
};

enum conf_routing_engine {
	CONF_ROUTE_AUTO,
	CONF_ROUTE_MINHOP,
	CONF_ROUTE_UPDN,
	CONF_ROUTE_FTREE,
};

enum conf_ar_mode {
	CONF_AR_FREE,
	CONF_AR_BOUNDED,
};

/* OpenSM part_enforce: which directions switch ports facing CAs filter. */
enum conf_part_enforce {
	CONF_PART_ENF_BOTH,
	CONF_PART_ENF_IN,
	CONF_PART_ENF_OUT,
	CONF_PART_ENF_OFF,
};

/* When a new master sets PortInfo:ClientReregister on every CA port. */
enum conf_health_action {
	CONF_HEALTH_REPORT,
	CONF_HEALTH_ISOLATE,
};

enum conf_client_rereg {
	CONF_REREG_AUTO,      /* when it cannot be sure it holds the clients' state */
	CONF_REREG_ALWAYS,
	CONF_REREG_NEVER,
};

struct conf_guids {
	size_t n;
	uint64_t *v;   /* owned; NULL when n == 0 */
};

/* Strings are owned and never NULL once conf_defaults() has run. */
struct sm_conf {
	/* port the SM binds to */
	char *ca;
	unsigned port;
	uint64_t port_guid;
	/* SM identity */
	unsigned sm_priority;
	uint64_t sm_key;
	unsigned sm_poll_interval;
	unsigned sm_poll_retries;
	/* sweeps */
	unsigned sweep_interval;
	unsigned light_sweep_interval;
	unsigned flap_holddown_s;
	unsigned audit_period;
	/* routing and LIDs */
	int routing_engine;            /* enum conf_routing_engine */
	struct conf_guids root_guids;
	unsigned lmc;
	/* PortInfo / SwitchInfo values the SM programs */
	uint64_t subnet_prefix;
	uint64_t m_key;
	unsigned m_key_lease_period;
	unsigned m_key_protect;
	unsigned subnet_timeout;
	unsigned packet_life_time;
	unsigned max_op_vls;
	/* MAD engine */
	unsigned smp_window;
	unsigned smp_per_dest;
	unsigned smp_timeout_ms;
	unsigned smp_retries;
	unsigned smp_retries_max;
	/* daemon */
	char *state_dir;
	char *socket_path;
	char *socket_group;
	unsigned max_clients;
	unsigned max_clients_per_uid;
	unsigned admin_clients;
	unsigned client_idle_timeout;
	int log_level;                 /* enum conf_log_level */
	/* adaptive routing */
	bool ar_enable;
	int ar_mode;                   /* enum conf_ar_mode */
	unsigned ar_ageing_time_us;
	uint64_t ar_sl_mask;
	uint64_t ar_transport_mask;
	/* Subnet Administration */
	uint64_t sa_key;
	unsigned sa_max_records;
	unsigned sa_sweep_rate;
	int client_reregister;         /* enum conf_client_rereg */
	unsigned standby_copy_rate;
	/* the SA's fair shares (fabric/mcshare.h, sa/rec_service.c, sa/rec_inform.c) */
	unsigned sa_groups_per_port;
	unsigned sa_groups_per_partition;
	unsigned sa_memberships_per_port;
	unsigned sa_max_memberships;
	unsigned sa_services_per_port;
	unsigned sa_max_services;
	unsigned sa_subscriptions_per_port;
	unsigned sa_max_subscriptions;
	unsigned sa_trusted_share;
	/* partitions (sm/pkey.c) */
	char *partitions_file;
	int part_enforce;              /* enum conf_part_enforce */
	bool allow_both_pkeys;
	/* QoS tables (sm/qos.c; value syntax in conf/qosconf.h) */
	bool qos;
	unsigned qos_max_vls;
	unsigned qos_high_limit;
	char *qos_vlarb_high;
	char *qos_vlarb_low;
	char *qos_sl2vl;
	char *qos_ca, *qos_rtr, *qos_sw0, *qos_swe;
	/* multicast (sm/mcast.c) */
	unsigned mcast_batch_ms;
	/* performance manager and link health (daemon/pmhost.c) */
	bool perfmgr;
	unsigned perfmgr_interval, perfmgr_window, perfmgr_per_node;
	unsigned health_window;
	unsigned health_symbol_errors, health_link_error_recovery, health_link_downed;
	unsigned health_rcv_errors, health_rcv_remote_phys_errors, health_xmit_discards;
	unsigned health_local_link_integrity, health_excessive_buffer_overrun;
	unsigned health_vl15_dropped;
	unsigned health_xmit_wait_pct, health_flap_bounces, health_not_answering_rounds;
	int health_action;             /* enum conf_health_action */
	unsigned health_isolate_max, health_isolate_quiet;
	char *metrics_listen;
};

enum conf_type {
	CONF_BOOL,     /* bool */
	CONF_UINT,     /* unsigned, decimal, min..max */
	CONF_HEX,      /* uint64_t, hexadecimal, 0..max */
	CONF_STRING,   /* char *, at most max bytes */
	CONF_ENUM,     /* int, index into values[] */
	CONF_GUIDS,    /* struct conf_guids */
};

struct conf_opt {
	const char *name;
	enum conf_type type;
	size_t off;                  /* offsetof(struct sm_conf, field) */
	uint64_t min, max;           /* UINT range, HEX max, STRING max length */
	const char *def;             /* default, in file syntax */
	const char *unit;            /* "s", "ms", "us" or NULL */
	const char *const *values;   /* ENUM: NULL-terminated names */
	bool reloadable;             /* applied by a reload without restart */
	bool abs_path;               /* STRING: must be an absolute path */
	const char *help;
	/* STRING: checks the value's syntax; 0, or -1 with a message */
	int (*check)(const char *value, char *err, size_t errlen);
};

struct conf_errors {
	size_t n;                        /* messages kept in msg[] */
	size_t dropped;                  /* errors beyond CONF_MAX_ERRORS */
	char *msg[CONF_MAX_ERRORS];      /* "NAME:LINE: message", owned */
};

struct conf_change {
	const struct conf_opt *opt;
	bool needs_restart;              /* !opt->reloadable */
};

/* Fill c with the defaults. c must not hold owned strings (fresh or freed). */
void conf_defaults(struct sm_conf *c);
void conf_free(struct sm_conf *c);

/*
 * Parse buf (len bytes, need not be NUL-terminated) into c, starting from
 * the defaults; same precondition on c as conf_defaults(). name prefixes
 * the messages. Returns the number of errors (kept + dropped); on errors c
 * is still valid (free it) but must not be used as a configuration.
 */
int conf_parse_buf(struct sm_conf *c, const char *name, const char *buf,
		   size_t len, struct conf_errors *errs);
/* conf_parse_buf() on a file; a missing or unreadable file is one error,
 * and so is anything but a regular file (a FIFO, device, directory...) or a
 * file over CONF_MAX_FILE bytes: loading never blocks. */
int conf_load_file(struct sm_conf *c, const char *path, struct conf_errors *errs);
/* The whole of path into *buf (malloc'ed, *len bytes; the caller frees it)
 * under the same rules: 0, -ENOENT when there is no such file (nothing
 * added to errs), or -1 with the error added. Used for the partitions file
 * too. */
int conf_read_file(const char *path, struct conf_errors *errs, char **buf, size_t *len);
void conf_errors_init(struct conf_errors *errs);
void conf_errors_free(struct conf_errors *errs);
/* Print the kept messages, one per line, plus a count of dropped ones. */
void conf_errors_print(const struct conf_errors *errs, FILE *out);

/* Set one option of a valid c (command line "-o key=value"). 0, or -1 with
 * a message in err; c is unchanged on error. */
int conf_set(struct sm_conf *c, const char *key, const char *value,
	     char *err, size_t errlen);

/* Every option in table order as "key value" with its help as comments.
 * The output parses back to an identical configuration. */
void conf_dump(const struct sm_conf *c, FILE *out);
/* One option's value in file syntax (quoted where needed). snprintf-like:
 * returns the length the full text needs. */
int conf_format_value(const struct sm_conf *c, const struct conf_opt *o,
		      char *buf, size_t len);
/* What an option accepts, e.g. "integer 0..86400 (s)"; snprintf-like. */
int conf_opt_syntax(const struct conf_opt *o, char *buf, size_t len);

/* Options whose value differs between old and nw, in table order. Writes
 * at most max entries; returns the total number of differences. */
int conf_diff(const struct sm_conf *old, const struct sm_conf *nw,
	      struct conf_change *changes, size_t max);

size_t conf_opt_count(void);
const struct conf_opt *conf_opt_at(size_t i);
const struct conf_opt *conf_opt_find(const char *name);
/* Name of value v of an ENUM option, NULL if out of range. */
const char *conf_enum_name(const struct conf_opt *o, int v);

#endif

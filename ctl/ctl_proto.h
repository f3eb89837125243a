/*
 * DOC: the control protocol codec (ctl/ctl_proto.c): decoding a request
 * line, building replies, events and the hello, and the access rule.
 * Pure; used by the daemon, its unit tests and the fuzzer.
 */
#ifndef IBSM_CTL_PROTO_H_
#define IBSM_CTL_PROTO_H_

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ibsm/ctl_proto.h"

struct ctl_request {
	json_object *root;    /* owned, the whole request */
	json_object *id;      /* borrowed from root, NULL if absent */
	const char *cmd;      /* borrowed */
	json_object *args;    /* borrowed, NULL if absent */
	enum ctl_error err;   /* on failure */
	char errmsg[256];
	char field[65];       /* on failure: the member at fault, "" if none */
};

/* Credentials of a connected peer (SO_PEERCRED, SO_PEERGROUPS). */
struct ctl_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	size_t ngroups;
	gid_t groups[64];
};

/*
 * Decode one request line (without its '\n'; need not be NUL-terminated).
 * 0 on success; -1 with r->err, r->errmsg and maybe r->field set. Either
 * way r->id is set when the line was an object with a usable id, and
 * ctl_request_free() must be called. Strict: see ctl_json.h for the JSON
 * rules; members other than id, cmd and args are an error.
 */
int ctl_parse_request(const char *line, size_t len, struct ctl_request *r);
void ctl_request_free(struct ctl_request *r);
/*
 * Check the arguments (args may be NULL) of command cmd against its spec
 * from CTL_COMMANDS: every member must be named in the spec, a '!' flag
 * must be a boolean, any other a string or an integer (null counts as
 * absent), and the names without '?' or '!' must be present. 0, or -1 with
 * r->err = CTL_E_invalid_args, r->errmsg and r->field set.
 */
int ctl_check_args(const char *cmd, const char *spec, json_object *args, struct ctl_request *r);

const char *ctl_error_name(enum ctl_error e);
const char *ctl_error_meaning(enum ctl_error e);

/* Replies take a reference on id; result ownership passes to the reply. */
json_object *ctl_reply_result(json_object *id, json_object *result);
json_object *ctl_reply_error(json_object *id, enum ctl_error code, const char *msg);
/* The same with "field": the request member or argument at fault (when
 * field is not NULL or empty). */
json_object *ctl_reply_error_field(json_object *id, enum ctl_error code, const char *msg,
				   const char *field);
/* A reply array built under a byte budget, so that a reply too long to
 * send is refused while it is built rather than queued whole: items go in
 * while the array's serialized size stays within max bytes. */
struct ctl_capped {
	json_object *arr;
	size_t bytes, max;
};
void ctl_capped_init(struct ctl_capped *c, size_t max);
/* Adds item (taking it): 0, or -1 past the budget (item freed). */
int ctl_capped_add(struct ctl_capped *c, json_object *item);
json_object *ctl_event_new(const char *name, double time, json_object *data);
json_object *ctl_hello_new(const char *version, bool admin);
/* A number printed with this many decimals (json-c prints 17 digits). */
json_object *ctl_json_fixed(double v, int decimals);
/* Serialized, without the '\n'; valid while o lives. */
const char *ctl_to_line(json_object *o, size_t *len);

/* A reply {"id":ID,"result":{KEY:[item,...]}} written in parts: this
 * head (malloc'ed, *len bytes, no NUL counted), the items separated by
 * ',', then CTL_STREAM_TAIL. Together they are what ctl_to_line() gives
 * for ctl_reply_result() of the same, and a '\n'. */
char *ctl_stream_head(json_object *id, const char *key, size_t *len);
#define CTL_STREAM_TAIL "]}}\n"

/* Connection limits (the configuration's max_clients,
 * max_clients_per_uid, admin_clients, client_idle_timeout). */
struct ctl_limits {
	unsigned max_clients, per_uid, admin_slots, idle_timeout_s;
};
/* Connections served: all, those without admin rights, and those of the
 * newcomer's uid without admin rights. */
struct ctl_counts {
	unsigned total, nonadmin, same_uid;
};
/* Whether a newcomer may be served: 0, or -1 with the reason in why. An
 * admin needs only a free slot; anybody else also one outside the
 * admin_slots reserved for admins, and their uid below per_uid. */
int ctl_admit(const struct ctl_limits *l, const struct ctl_counts *n, bool admin,
	      char *why, size_t len);

/* uid 0 and the daemon's own uid are admins, and so is a peer whose primary
 * or supplementary group is socket_group (when one is configured). */
bool ctl_peer_is_admin(const struct ctl_peer *p, uid_t daemon_uid, bool have_group, gid_t group);
bool ctl_access_allowed(enum ctl_access need, bool admin);

#endif

/*
 * DOC: control protocol codec: request decoding, reply and event encoding,
 * and the access rule.
 *
 * Pure functions over json-c, no sockets and no daemon state, so the unit
 * tests and the fuzzer link only this file (and ctl_json.c). A request
 * line is untrusted: its length is bounded by the caller; it must pass the
 * strict check of ctl_json.c (no duplicate member, no "\u0000", UTF-8,
 * nesting) before json-c parses it; the top level may hold only id, cmd
 * and args, and the arguments must match the command's spec in
 * CTL_COMMANDS (names, flag or value, required ones present). Errors name
 * the offending member in "field" when there is one.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl_json.h"
#include "ctl/ctl_proto.h"

static const char *const error_names[] = {
#define CTL_ERR_NAME(code, meaning) #code,
	CTL_ERRORS(CTL_ERR_NAME)
#undef CTL_ERR_NAME
};

static const char *const error_meanings[] = {
#define CTL_ERR_MEANING(code, meaning) meaning,
	CTL_ERRORS(CTL_ERR_MEANING)
#undef CTL_ERR_MEANING
};

_Static_assert(sizeof(error_names) / sizeof(error_names[0]) == CTL_E_COUNT,
	       "error table out of step");

const char *ctl_error_name(enum ctl_error e)
{
	return (unsigned)e < CTL_E_COUNT ? error_names[e] : "internal";
}

const char *ctl_error_meaning(enum ctl_error e)
{
	return (unsigned)e < CTL_E_COUNT ? error_meanings[e] : "";
}

void ctl_request_free(struct ctl_request *r)
{
	if (r->root)
		json_object_put(r->root);
	memset(r, 0, sizeof(*r));
}

static int fail(struct ctl_request *r, enum ctl_error code, const char *msg)
{
	r->err = code;
	snprintf(r->errmsg, sizeof(r->errmsg), "%s", msg);
	return -1;
}

/* An error about the member name (which goes into field). */
__attribute__((format(printf, 4, 5)))
static int fail_field(struct ctl_request *r, enum ctl_error code, const char *name,
		      const char *fmt, ...)
{
	va_list ap;

	r->err = code;
	snprintf(r->field, sizeof(r->field), "%s", name);
	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	return -1;
}

/* json-c on a line that passed ctl_json_check(): only its own limits
 * (numbers out of range) can still make it fail. */
static json_object *tokenize(const char *line, size_t len, struct ctl_request *r)
{
	json_tokener *tok = json_tokener_new_ex(CTL_JSON_MAX_DEPTH + 1);
	json_object *o;

	if (!tok)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		snprintf(r->errmsg, sizeof(r->errmsg), "JSON: %s",
			 e == json_tokener_continue ? "incomplete" : json_tokener_error_desc(e));
	}
	json_tokener_free(tok);
	return o;
}

/* The strict check. A line that is JSON but breaks a rule (a duplicate
 * member, "\u0000") is still parsed afterwards, so that its error reply
 * can carry the request's id, unless the rule broken was about the id. */
static int check_json(const char *line, size_t len, struct ctl_request *r)
{
	struct ctl_json_error je;

	if (ctl_json_check(line, len, &je) == 0)
		return 0;
	r->err = CTL_E_parse_error;
	snprintf(r->field, sizeof(r->field), "%s", je.field);
	if (je.field[0])
		snprintf(r->errmsg, sizeof(r->errmsg), "JSON: %s (\"%.64s\", byte %zu)", je.msg,
			 je.field, je.offset);
	else
		snprintf(r->errmsg, sizeof(r->errmsg), "JSON: %s (byte %zu)", je.msg, je.offset);
	if (!je.syntax && !(je.depth == 1 && strcmp(je.field, CTL_F_ID) == 0))
		r->root = tokenize(line, len, r);
	return -1;
}

static bool id_ok(json_object *id)
{
	switch (json_object_get_type(id)) {
	case json_type_null: case json_type_int: case json_type_string:
		return true;
	default:
		return false;
	}
}

/* The id, when the root is an object with a usable one. */
static int take_id(struct ctl_request *r)
{
	json_object *id;

	if (!r->root || !json_object_is_type(r->root, json_type_object) ||
	    !json_object_object_get_ex(r->root, CTL_F_ID, &id))
		return 0;
	if (!id_ok(id))
		return fail_field(r, CTL_E_invalid_request, CTL_F_ID,
				  "\"%s\" must be an integer, a string or null", CTL_F_ID);
	r->id = id;
	return 0;
}

static int members_known(struct ctl_request *r)
{
	json_object_object_foreach(r->root, key, val) {
		(void)val;
		if (strcmp(key, CTL_F_ID) && strcmp(key, CTL_F_CMD) && strcmp(key, CTL_F_ARGS))
			return fail_field(r, CTL_E_invalid_request, key,
					  "unknown member \"%.64s\" (a request has id, cmd, args)", key);
	}
	return 0;
}

/* Keeps the id whenever it can be found, so even a bad request gets an
 * error reply the client can match. */
int ctl_parse_request(const char *line, size_t len, struct ctl_request *r)
{
	json_object *cmd = NULL, *args = NULL;
	bool bad;

	memset(r, 0, sizeof(*r));
	if (len > CTL_MAX_REQUEST)
		return fail(r, CTL_E_too_large, "request too large");
	if (memchr(line, '\0', len))
		return fail(r, CTL_E_parse_error, "NUL byte in request");
	bad = check_json(line, len, r) < 0;
	if (!bad && !(r->root = tokenize(line, len, r)))
		return fail(r, CTL_E_parse_error, r->errmsg[0] ? r->errmsg : "JSON: unparsable");
	if (take_id(r) < 0 || bad)
		return -1;
	if (!json_object_is_type(r->root, json_type_object))
		return fail(r, CTL_E_invalid_request, "a request is a JSON object");
	if (members_known(r) < 0)
		return -1;
	if (!json_object_object_get_ex(r->root, CTL_F_CMD, &cmd) ||
	    !json_object_is_type(cmd, json_type_string))
		return fail_field(r, CTL_E_invalid_request, CTL_F_CMD, "\"%s\" (a string) is missing",
				  CTL_F_CMD);
	r->cmd = json_object_get_string(cmd);
	if (json_object_object_get_ex(r->root, CTL_F_ARGS, &args) &&
	    !json_object_is_type(args, json_type_null)) {
		if (!json_object_is_type(args, json_type_object))
			return fail_field(r, CTL_E_invalid_args, CTL_F_ARGS, "\"%s\" must be an object",
					  CTL_F_ARGS);
		r->args = args;
	}
	return 0;
}

/* Finds name in an argument spec ("src dst", "?node", "!wait"); sets
 * *flag for a '!' one, *optional for '?' and '!'. */
static bool spec_find(const char *spec, const char *name, bool *flag, bool *optional)
{
	size_t n = strlen(name);

	/* names in a spec are single words without the markers */
	if (!n || strpbrk(name, " ?!"))
		return false;
	for (const char *p = spec; *p;) {
		while (*p == ' ')
			p++;
		*flag = *p == '!';
		*optional = *p == '?' || *p == '!';
		p += *optional;
		if (strncmp(p, name, n) == 0 && (p[n] == ' ' || p[n] == '\0'))
			return true;
		if (p[0] == '*' && (p[1] == ' ' || p[1] == '\0'))
			return true;   /* "*": any other name; the handler checks it */
		while (*p && *p != ' ')
			p++;
	}
	return false;
}

static int arg_ok(const char *cmd, const char *spec, const char *key, json_object *v,
		  struct ctl_request *r)
{
	bool flag, optional;

	if (!spec_find(spec, key, &flag, &optional))
		return fail_field(r, CTL_E_invalid_args, key, "%.32s takes no argument \"%.64s\"",
				  cmd, key);
	if (json_object_is_type(v, json_type_null))
		return 0;
	if (flag && !json_object_is_type(v, json_type_boolean))
		return fail_field(r, CTL_E_invalid_args, key, "\"%.64s\" must be true or false", key);
	if (!flag && !json_object_is_type(v, json_type_string) && !json_object_is_type(v, json_type_int))
		return fail_field(r, CTL_E_invalid_args, key, "\"%.64s\" must be a string", key);
	return 0;
}

/* Every argument of the spec without '?' or '!' must be there, not null. */
static int required_present(const char *spec, json_object *args, struct ctl_request *r)
{
	char name[32];
	json_object *v;

	for (const char *p = spec; *p;) {
		size_t n = 0;
		bool opt;

		while (*p == ' ')
			p++;
		opt = *p == '?' || *p == '!';
		p += opt;
		while (*p && *p != ' ' && n < sizeof(name) - 1)
			name[n++] = *p++;
		name[n] = '\0';
		if (n && !opt && (!args || !json_object_object_get_ex(args, name, &v) ||
				  json_object_is_type(v, json_type_null)))
			return fail_field(r, CTL_E_invalid_args, name, "missing argument \"%s\"", name);
	}
	return 0;
}

int ctl_check_args(const char *cmd, const char *spec, json_object *args, struct ctl_request *r)
{
	if (args) {
		json_object_object_foreach(args, key, v) {
			if (arg_ok(cmd, spec, key, v, r) < 0)
				return -1;
		}
	}
	return required_present(spec, args, r);
}

static json_object *reply_base(json_object *id)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, CTL_F_ID, id ? json_object_get(id) : NULL);
	return o;
}

json_object *ctl_reply_result(json_object *id, json_object *result)
{
	json_object *o = reply_base(id);

	json_object_object_add(o, CTL_F_RESULT, result ? result : json_object_new_object());
	return o;
}

/* Text cut by snprintf may end inside a UTF-8 sequence: drop that part,
 * so that what we send stays valid UTF-8. */
static json_object *utf8_string(const char *s)
{
	size_t n = strlen(s), k = n, need;

	while (k > 0 && ((unsigned char)s[k - 1] & 0xc0) == 0x80 && n - k < 3)
		k--;
	if (k > 0 && (unsigned char)s[k - 1] >= 0xc0) {
		unsigned char lead = (unsigned char)s[k - 1];

		need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
		if (n - (k - 1) < need)
			n = k - 1;
	}
	return json_object_new_string_len(s, (int)n);
}

json_object *ctl_reply_error_field(json_object *id, enum ctl_error code, const char *msg,
				   const char *field)
{
	json_object *o = reply_base(id), *e = json_object_new_object();

	json_object_object_add(e, CTL_F_CODE, json_object_new_string(ctl_error_name(code)));
	json_object_object_add(e, CTL_F_MESSAGE,
			       utf8_string(msg && *msg ? msg : ctl_error_meaning(code)));
	if (field && *field)
		json_object_object_add(e, CTL_F_FIELD, utf8_string(field));
	json_object_object_add(o, CTL_F_ERROR, e);
	return o;
}

json_object *ctl_reply_error(json_object *id, enum ctl_error code, const char *msg)
{
	return ctl_reply_error_field(id, code, msg, NULL);
}

json_object *ctl_json_fixed(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

json_object *ctl_event_new(const char *name, double time, json_object *data)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, CTL_F_EVENT, json_object_new_string(name));
	json_object_object_add(o, "time", ctl_json_fixed(time, 3));
	json_object_object_add(o, CTL_F_DATA, data ? data : json_object_new_object());
	return o;
}

json_object *ctl_hello_new(const char *version, bool admin)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, CTL_F_HELLO, json_object_new_string("ibsmd"));
	json_object_object_add(o, CTL_F_PROTO, json_object_new_int(CTL_PROTOCOL_VERSION));
	json_object_object_add(o, "version", json_object_new_string(version));
	json_object_object_add(o, "admin", json_object_new_boolean(admin));
	return o;
}

void ctl_capped_init(struct ctl_capped *c, size_t max)
{
	c->arr = json_object_new_array();
	c->bytes = 2;   /* [] */
	c->max = max;
}

int ctl_capped_add(struct ctl_capped *c, json_object *item)
{
	size_t len = 0;

	json_object_to_json_string_length(item, JSON_C_TO_STRING_PLAIN, &len);
	if (c->bytes + len + 1 > c->max) {
		json_object_put(item);
		return -1;
	}
	c->bytes += len + 1;   /* and its comma */
	json_object_array_add(c->arr, item);
	return 0;
}

const char *ctl_to_line(json_object *o, size_t *len)
{
	const char *s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, len);

	return s;
}

char *ctl_stream_head(json_object *id, const char *key, size_t *len)
{
	json_object *k = json_object_new_string(key);
	const char *ids = id ? json_object_to_json_string_ext(id, JSON_C_TO_STRING_PLAIN) : "null";
	const char *ks = json_object_to_json_string_ext(k, JSON_C_TO_STRING_PLAIN);
	size_t n = strlen(ids) + strlen(ks) + 32;
	char *head = malloc(n);

	if (!head)
		abort();
	*len = (size_t)snprintf(head, n, "{\"%s\":%s,\"%s\":{%s:[", CTL_F_ID, ids, CTL_F_RESULT, ks);
	json_object_put(k);
	return head;
}

int ctl_admit(const struct ctl_limits *l, const struct ctl_counts *n, bool admin,
	      char *why, size_t len)
{
	unsigned others = l->max_clients > l->admin_slots ? l->max_clients - l->admin_slots : 0;

	if (n->total >= l->max_clients) {
		snprintf(why, len, "too many clients (max_clients %u)", l->max_clients);
		return -1;
	}
	if (admin)
		return 0;
	if (n->nonadmin >= others) {
		snprintf(why, len, "too many clients: the %u free connections are for admins "
			 "(admin_clients %u)", l->max_clients - n->total, l->admin_slots);
		return -1;
	}
	if (n->same_uid >= l->per_uid) {
		snprintf(why, len, "too many connections of this user (max_clients_per_uid %u)",
			 l->per_uid);
		return -1;
	}
	return 0;
}

bool ctl_peer_is_admin(const struct ctl_peer *p, uid_t daemon_uid, bool have_group, gid_t group)
{
	if (p->uid == 0 || p->uid == daemon_uid)
		return true;
	if (!have_group)
		return false;
	if (p->gid == group)
		return true;
	for (size_t i = 0; i < p->ngroups; i++)
		if (p->groups[i] == group)
			return true;
	return false;
}

bool ctl_access_allowed(enum ctl_access need, bool admin)
{
	return need == CTL_RO || admin;
}

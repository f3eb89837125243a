/*
 * DOC: control protocol codec: request decoding, reply and event encoding,
 * and the access rule.
 *
 * Pure functions over json-c, no sockets and no daemon state, so the unit
 * tests and the fuzzer link only this file. A request line is untrusted:
 * its length is bounded by the caller, JSON nesting by the tokener depth,
 * and every field is type-checked before use.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ctl/ctl_proto.h"

#define CTL_JSON_DEPTH 16

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

static json_object *tokenize(const char *line, size_t len, struct ctl_request *r)
{
	json_tokener *tok = json_tokener_new_ex(CTL_JSON_DEPTH);
	json_object *o;
	size_t end;

	if (!tok)
		return NULL;
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		snprintf(r->errmsg, sizeof(r->errmsg), "JSON: %s",
			 e == json_tokener_continue ? "incomplete" : json_tokener_error_desc(e));
		json_tokener_free(tok);
		return NULL;
	}
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	for (; end < len; end++) {
		if (!strchr(" \t\r\n", line[end])) {
			snprintf(r->errmsg, sizeof(r->errmsg), "JSON: trailing data after the object");
			json_object_put(o);
			return NULL;
		}
	}
	return o;
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

/* Keeps the id whenever it can be found, so even a bad request gets an
 * error reply the client can match. */
int ctl_parse_request(const char *line, size_t len, struct ctl_request *r)
{
	json_object *id = NULL, *cmd = NULL, *args = NULL;

	memset(r, 0, sizeof(*r));
	if (len > CTL_MAX_REQUEST)
		return fail(r, CTL_E_too_large, "request too large");
	if (memchr(line, '\0', len))
		return fail(r, CTL_E_parse_error, "NUL byte in request");
	r->root = tokenize(line, len, r);
	if (!r->root) {
		r->err = CTL_E_parse_error;
		return -1;
	}
	if (!json_object_is_type(r->root, json_type_object))
		return fail(r, CTL_E_invalid_request, "a request is a JSON object");
	if (json_object_object_get_ex(r->root, CTL_F_ID, &id)) {
		if (!id_ok(id))
			return fail(r, CTL_E_invalid_request, "id must be an integer, a string or null");
		r->id = id;
	}
	if (!json_object_object_get_ex(r->root, CTL_F_CMD, &cmd) ||
	    !json_object_is_type(cmd, json_type_string))
		return fail(r, CTL_E_invalid_request, "cmd (a string) is missing");
	r->cmd = json_object_get_string(cmd);
	if (json_object_object_get_ex(r->root, CTL_F_ARGS, &args) &&
	    !json_object_is_type(args, json_type_null)) {
		if (!json_object_is_type(args, json_type_object))
			return fail(r, CTL_E_invalid_args, "args must be an object");
		r->args = args;
	}
	return 0;
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

json_object *ctl_reply_error(json_object *id, enum ctl_error code, const char *msg)
{
	json_object *o = reply_base(id), *e = json_object_new_object();

	json_object_object_add(e, CTL_F_CODE, json_object_new_string(ctl_error_name(code)));
	json_object_object_add(e, CTL_F_MESSAGE,
			       json_object_new_string(msg && *msg ? msg : ctl_error_meaning(code)));
	json_object_object_add(o, CTL_F_ERROR, e);
	return o;
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

const char *ctl_to_line(json_object *o, size_t *len)
{
	const char *s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, len);

	return s;
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

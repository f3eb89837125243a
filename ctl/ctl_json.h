/*
 * DOC: strict JSON check of a control request line (ctl/ctl_json.c).
 *
 * json-c parses more than JSON and silently loses what the control
 * protocol must not lose: of two members with the same name the last one
 * wins, and a "\u0000" inside a string cuts it short for every C reader
 * ("h-000\u0000x" would name h-000). So a request line must first pass
 * this check, and json-c only ever sees text that has:
 *  - exactly one JSON value (RFC 8259 grammar: no comments, no single
 *    quotes, no trailing commas, no NaN), surrounded only by blanks;
 *  - valid UTF-8 (RFC 3629) in strings, and \u escapes that are not
 *    lone surrogates;
 *  - no "\u0000" in any string, member names included;
 *  - no member name twice in one object (compared after unescaping, so
 *    "a" and "\u0061" are the same name);
 *  - at most CTL_JSON_MAX_DEPTH nested arrays and objects, and at most
 *    CTL_JSON_MAX_MEMBERS members per object.
 */
#ifndef IBSM_CTL_JSON_H
#define IBSM_CTL_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define CTL_JSON_MAX_DEPTH 16
#define CTL_JSON_MAX_MEMBERS 64

struct ctl_json_error {
	char msg[96];
	char field[65];        /* the member the problem is in or about, "" if none */
	int depth;             /* object nesting of that member: 1 = top level */
	size_t offset;         /* byte offset of the problem */
	bool syntax;           /* not JSON at all (else JSON that breaks a rule) */
};

/* 0 when buf[0..len) passes; -1 with *err filled. */
int ctl_json_check(const char *buf, size_t len, struct ctl_json_error *err);

#endif

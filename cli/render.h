/*
 * DOC: ibsmctl's text output (cli/render.c): tables for the replies of the
 * daemon's commands, event lines for watch, and the Graphviz view of the
 * fabric. Anything it does not know is printed as indented JSON.
 */
#ifndef IBSM_CLI_RENDER_H
#define IBSM_CLI_RENDER_H

#include <json-c/json.h>
#include <stdbool.h>

#include "ibsm/ctl_proto.h"

/* A reply's result, for command cmd. */
void render_result(const char *cmd, json_object *result);
/* An error reply, to stderr. */
void render_error(json_object *reply);
void render_event(json_object *ev);
/* nodes and links are the results of those commands. */
void render_topology(json_object *nodes, json_object *links, bool dot);

#endif

/*
 * DOC: ibsmctl, the admin client of ibsmd's control socket.
 *
 * One request per run (watch: a subscription), over the NDJSON protocol of
 * include/ibsm/ctl_proto.h. The command list, access marks and help are the
 * same CTL_COMMANDS table the daemon dispatches from, so "help" and the bash
 * completion work without a daemon; when one answers, "help" asks it, so a
 * newer daemon's commands show up too. Replies are rendered as tables
 * (render.c) or passed through with --json; the exit status says whether
 * the reply was a result.
 *
 * Exit status: 0 result, 1 error reply, 2 usage, 3 no daemon / protocol.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli/render.h"

#define EXIT_ERROR_REPLY 1
#define EXIT_USAGE 2
#define EXIT_CONN 3

struct cmd_info {
	const char *name;
	enum ctl_access access;
	const char *args;
	const char *help;
};

#define CLI_CMD_ENTRY(n, acc, a, h) { #n, acc, a, h },
static const struct cmd_info cmds[] = { CTL_COMMANDS(CLI_CMD_ENTRY) };
#undef CLI_CMD_ENTRY
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* Commands ibsmctl implements on top of the protocol. */
static const struct cmd_info local_cmds[] = {
	{ "help", CTL_RO, "?command", "list the commands, or describe one" },
	{ "watch", CTL_RO, "", "print events as they happen (subscribe) until interrupted" },
	{ "topology", CTL_RO, "!dot", "the fabric; --dot: as a Graphviz graph" },
	{ "completion", CTL_RO, "shell", "print a completion script (bash)" },
};
#define NLOCAL (sizeof(local_cmds) / sizeof(local_cmds[0]))

struct opts {
	const char *socket;
	bool json;
	int timeout_s;
	bool timeout_set;
};

struct conn {
	int fd;
	char *buf;
	size_t len, cap;
	size_t scanned;        /* bytes of buf known to hold no '\n' */
	int timeout_ms;
	bool admin;
};

/* Set by SIGINT/SIGTERM during watch. */
static volatile sig_atomic_t stop;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ibsmctl [options] COMMAND [ARG...] [NAME=VALUE...] [--FLAG]\n"
		"  -s, --socket PATH   control socket (default " CTL_DEFAULT_SOCKET ")\n"
		"  -j, --json          print the daemon's JSON reply unchanged\n"
		"  -t, --timeout SEC   give up waiting for a reply (default 30, 0: never)\n"
		"  -h, --help          this text and the command list\n"
		"  -V, --version       print the version\n\ncommands:\n");
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(out, "  %-11s %-8s %s%s\n", cmds[i].name, cmds[i].args, cmds[i].help,
			cmds[i].access == CTL_ADMIN ? " [admin]" : "");
	for (size_t i = 0; i < NLOCAL; i++)
		fprintf(out, "  %-11s %-8s %s\n", local_cmds[i].name, local_cmds[i].args,
			local_cmds[i].help);
	fprintf(out, "\nlimits (ibsmctl(8), LIMITS; \"ibsmctl help\" shows those in force):\n"
		"  connections: max_clients, admin_clients of them for admins only,\n"
		"  max_clients_per_uid for any other user; idle ones are closed after\n"
		"  client_idle_timeout s. A request line is at most %d bytes; the next one is\n"
		"  read once the replies before it were read. Exit status 3 when refused.\n",
		CTL_MAX_REQUEST);
}

static const struct cmd_info *find_cmd(const char *name)
{
	for (size_t i = 0; i < NCMDS; i++)
		if (strcmp(cmds[i].name, name) == 0)
			return &cmds[i];
	return NULL;
}

/* ---- connection ---- */

static int conn_open(struct conn *c, const char *path, int timeout_s)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	memset(c, 0, sizeof(*c));
	c->timeout_ms = timeout_s > 0 ? timeout_s * 1000 : -1;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "ibsmctl: socket path too long\n");
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		fprintf(stderr, "ibsmctl: cannot connect to %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
}

static int fill(struct conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	ssize_t n;
	int r;

	if (c->cap - c->len < 65536) {
		c->cap = c->cap ? 2 * c->cap : 131072;
		c->buf = realloc(c->buf, c->cap);
		if (!c->buf) {
			fprintf(stderr, "ibsmctl: out of memory\n");
			exit(EXIT_CONN);
		}
	}
	do
		r = poll(&p, 1, c->timeout_ms);
	while (r < 0 && errno == EINTR && !stop);
	if (r < 0)
		return -1;
	if (r == 0) {
		fprintf(stderr, "ibsmctl: no reply within the timeout\n");
		return -1;
	}
	n = read(c->fd, c->buf + c->len, c->cap - c->len);
	if (n <= 0) {
		fprintf(stderr, "ibsmctl: connection closed by ibsmd\n");
		return -1;
	}
	c->len += (size_t)n;
	return 0;
}

/* Next message, or NULL on EOF, timeout or garbage. A large reply comes
 * in many reads: each is searched for the end of the line only once. */
static json_object *conn_read(struct conn *c)
{
	char *nl;
	json_object *o;

	while (c->scanned == c->len || !(nl = memchr(c->buf + c->scanned, '\n', c->len - c->scanned))) {
		c->scanned = c->len;
		if (fill(c) < 0)
			return NULL;
	}
	*nl = '\0';
	o = json_tokener_parse(c->buf);
	c->len -= (size_t)(nl + 1 - c->buf);
	c->scanned = 0;
	memmove(c->buf, nl + 1, c->len);
	if (!o)
		fprintf(stderr, "ibsmctl: unparsable message from ibsmd\n");
	return o;
}

static int conn_hello(struct conn *c)
{
	json_object *h = conn_read(c), *v;

	if (!h)
		return -1;
	if (json_object_object_get_ex(h, CTL_F_ERROR, NULL)) {
		render_error(h);
		json_object_put(h);
		return -1;
	}
	if (!json_object_object_get_ex(h, CTL_F_PROTO, &v) ||
	    json_object_get_int(v) != CTL_PROTOCOL_VERSION) {
		fprintf(stderr, "ibsmctl: ibsmd speaks protocol %s, this ibsmctl %d\n",
			v ? json_object_get_string(v) : "?", CTL_PROTOCOL_VERSION);
		json_object_put(h);
		return -1;
	}
	c->admin = json_object_object_get_ex(h, "admin", &v) && json_object_get_boolean(v);
	json_object_put(h);
	return 0;
}

static int conn_send(struct conn *c, int id, const char *cmd, json_object *args)
{
	json_object *rq = json_object_new_object();
	const char *s;
	size_t len, off = 0;
	ssize_t n;

	json_object_object_add(rq, CTL_F_ID, json_object_new_int(id));
	json_object_object_add(rq, CTL_F_CMD, json_object_new_string(cmd));
	json_object_object_add(rq, CTL_F_ARGS, args ? json_object_get(args) : json_object_new_object());
	s = json_object_to_json_string_length(rq, JSON_C_TO_STRING_PLAIN, &len);
	while (off < len) {
		n = write(c->fd, s + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	json_object_put(rq);
	if (off < len || write(c->fd, "\n", 1) != 1) {
		fprintf(stderr, "ibsmctl: write: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The reply to request id; events in between are skipped. */
static json_object *conn_reply(struct conn *c, int id)
{
	json_object *o, *v;

	while ((o = conn_read(c))) {
		if (json_object_object_get_ex(o, CTL_F_ID, &v) && json_object_get_int(v) == id)
			return o;
		json_object_put(o);
	}
	return NULL;
}

static json_object *call(struct conn *c, const char *cmd, json_object *args)
{
	static int next_id = 1;
	int id = next_id++;

	if (conn_send(c, id, cmd, args) < 0)
		return NULL;
	return conn_reply(c, id);
}

/* ---- arguments ---- */

static json_object *typed_value(const char *s)
{
	bool digits = *s != '\0';

	if (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0)
		return json_object_new_boolean(1);
	if (strcmp(s, "false") == 0 || strcmp(s, "no") == 0)
		return json_object_new_boolean(0);
	for (const char *p = s; *p; p++)
		digits = digits && isdigit((unsigned char)*p);
	if (digits && strlen(s) < 10)
		return json_object_new_int(atoi(s));
	return json_object_new_string(s);
}

/* The n-th argument name of a spec such as "src dst" or "?node"; NULL if
 * there are fewer. Flags ('!') take no positional word. */
static bool spec_name(const char *spec, size_t n, char *out, size_t outlen)
{
	size_t i = 0;

	for (const char *p = spec; *p;) {
		size_t k = 0;
		bool flag;

		while (*p == ' ')
			p++;
		flag = *p == '!';
		if (*p == '?' || *p == '!')
			p++;
		while (*p && *p != ' ' && k + 1 < outlen)
			out[k++] = *p++;
		out[k] = '\0';
		if (k && !flag && i++ == n)
			return true;
	}
	return false;
}

/* Words after the command: positional ones fill the table's names in
 * order, NAME=VALUE sets any argument, --FLAG sets FLAG=true. */
static json_object *build_args(const struct cmd_info *ci, int argc, char **argv)
{
	json_object *args = json_object_new_object();
	size_t pos = 0;
	char name[64];

	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');

		if (strncmp(argv[i], "--", 2) == 0 && argv[i][2]) {
			json_object_object_add(args, argv[i] + 2, json_object_new_boolean(1));
		} else if (eq && eq != argv[i]) {
			snprintf(name, sizeof(name), "%.*s", (int)(eq - argv[i]), argv[i]);
			json_object_object_add(args, name, typed_value(eq + 1));
		} else if (ci && spec_name(ci->args, pos++, name, sizeof(name))) {
			json_object_object_add(args, name, typed_value(argv[i]));
		} else {
			fprintf(stderr, "ibsmctl: unexpected argument \"%s\"\n", argv[i]);
			json_object_put(args);
			return NULL;
		}
	}
	return args;
}

/* ---- commands ---- */

static bool is_error(json_object *reply)
{
	return !reply || json_object_object_get_ex(reply, CTL_F_ERROR, NULL);
}

static int finish(const struct opts *o, const char *cmd, json_object *reply)
{
	int rc;

	if (!reply)
		return EXIT_CONN;
	rc = is_error(reply) ? EXIT_ERROR_REPLY : 0;
	if (o->json)
		printf("%s\n", json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN));
	else if (rc)
		render_error(reply);
	else
		render_result(cmd, json_object_object_get(reply, CTL_F_RESULT));
	json_object_put(reply);
	return rc;
}

static int connect_daemon(struct conn *c, const struct opts *o)
{
	if (conn_open(c, o->socket, o->timeout_s) < 0 || conn_hello(c) < 0) {
		conn_close(c);
		return -1;
	}
	return 0;
}

static int run_remote(const struct opts *o, const char *cmd, int argc, char **argv)
{
	const struct cmd_info *ci = find_cmd(cmd);
	json_object *args = build_args(ci, argc, argv), *reply;
	struct conn c;

	struct opts ow = *o;

	if (!args)
		return EXIT_USAGE;
	/* a sweep on a big fabric can take longer than any default */
	if (!o->timeout_set && json_object_get_boolean(json_object_object_get(args, "wait")))
		ow.timeout_s = 0;
	o = &ow;
	if (connect_daemon(&c, o) < 0) {
		json_object_put(args);
		return EXIT_CONN;
	}
	reply = call(&c, cmd, args);
	json_object_put(args);
	conn_close(&c);
	return finish(o, cmd, reply);
}

static void help_one(const struct cmd_info *ci)
{
	printf("ibsmctl %s %s\n  %s\n  access: %s\n", ci->name, ci->args, ci->help,
	       ci->access == CTL_ADMIN ? "admin (root, or a member of socket_group)" : "anybody");
}

/* From the daemon when it answers (it may know more commands), else from
 * the table compiled in. */
static int cmd_help(const struct opts *o, int argc, char **argv)
{
	struct conn c;
	json_object *reply = NULL;

	if (argc > 0) {
		const struct cmd_info *ci = find_cmd(argv[0]);

		for (size_t i = 0; !ci && i < NLOCAL; i++)
			if (strcmp(local_cmds[i].name, argv[0]) == 0)
				ci = &local_cmds[i];
		if (!ci) {
			fprintf(stderr, "ibsmctl: no command \"%s\"\n", argv[0]);
			return EXIT_USAGE;
		}
		help_one(ci);
		return 0;
	}
	if (connect_daemon(&c, o) == 0) {
		reply = call(&c, "commands", NULL);
		conn_close(&c);
	}
	if (!reply || is_error(reply)) {
		if (reply)
			json_object_put(reply);
		usage(stdout);
		return 0;
	}
	return finish(o, "commands", reply);
}

static int cmd_completion(int argc, char **argv)
{
	if (argc != 1 || strcmp(argv[0], "bash") != 0) {
		fprintf(stderr, "ibsmctl: usage: ibsmctl completion bash\n");
		return EXIT_USAGE;
	}
	printf("# bash completion for ibsmctl; generated by \"ibsmctl completion bash\"\n"
	       "_ibsmctl() {\n"
	       "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i cmd=\n"
	       "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	       "\t\tcase ${COMP_WORDS[i]} in\n"
	       "\t\t-s|--socket|-t|--timeout) ((i++)) ;;\n"
	       "\t\t-*) ;;\n"
	       "\t\t*) cmd=${COMP_WORDS[i]}; break ;;\n"
	       "\t\tesac\n"
	       "\tdone\n"
	       "\tcase $prev in\n"
	       "\t-s|--socket) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
	       "\tesac\n"
	       "\tif [[ -z $cmd ]]; then\n"
	       "\t\tCOMPREPLY=($(compgen -W '-s --socket -j --json -t --timeout -h --help -V --version");
	for (size_t i = 0; i < NCMDS; i++)
		printf(" %s", cmds[i].name);
	for (size_t i = 0; i < NLOCAL; i++)
		printf(" %s", local_cmds[i].name);
	printf("' -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase $cmd in\n");
	for (size_t i = 0; i < NCMDS; i++)
		if (strchr(cmds[i].args, '!'))
			printf("\t%s) COMPREPLY=($(compgen -W '--wait' -- \"$cur\")) ;;\n", cmds[i].name);
	printf("\tloglevel) COMPREPLY=($(compgen -W 'err warning notice info debug' -- \"$cur\")) ;;\n"
	       "\ttopology) COMPREPLY=($(compgen -W '--dot' -- \"$cur\")) ;;\n"
	       "\tcompletion) COMPREPLY=($(compgen -W 'bash' -- \"$cur\")) ;;\n"
	       "\thelp) COMPREPLY=($(compgen -W '");
	for (size_t i = 0; i < NCMDS; i++)
		printf("%s ", cmds[i].name);
	printf("' -- \"$cur\")) ;;\n\tesac\n}\ncomplete -F _ibsmctl ibsmctl\n");
	return 0;
}

static void on_sigint(int sig)
{
	stop = 1;
}

static int cmd_watch(struct opts *o)
{
	struct conn c;
	json_object *reply, *ev;

	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	if (connect_daemon(&c, o) < 0)
		return EXIT_CONN;
	reply = call(&c, "subscribe", NULL);
	if (is_error(reply)) {
		conn_close(&c);
		return finish(o, "subscribe", reply);
	}
	json_object_put(reply);
	c.timeout_ms = -1;
	while (!stop && (ev = conn_read(&c))) {
		if (o->json)
			printf("%s\n", json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN));
		else
			render_event(ev);
		fflush(stdout);
		json_object_put(ev);
	}
	conn_close(&c);
	return 0;
}

static int cmd_topology(const struct opts *o, int argc, char **argv)
{
	struct conn c;
	json_object *nodes, *links;
	int rc;

	if (argc > 1 || (argc == 1 && strcmp(argv[0], "--dot") != 0)) {
		fprintf(stderr, "ibsmctl: usage: ibsmctl topology [--dot]\n");
		return EXIT_USAGE;
	}
	if (connect_daemon(&c, o) < 0)
		return EXIT_CONN;
	nodes = call(&c, "nodes", NULL);
	links = is_error(nodes) ? NULL : call(&c, "links", NULL);
	conn_close(&c);
	if (is_error(nodes) || is_error(links)) {
		rc = finish(o, "nodes", is_error(nodes) ? nodes : links);
		json_object_put(is_error(nodes) ? links : nodes);
		return rc ? rc : EXIT_CONN;
	}
	render_topology(json_object_object_get(nodes, CTL_F_RESULT),
			json_object_object_get(links, CTL_F_RESULT), argc == 1);
	json_object_put(nodes);
	json_object_put(links);
	return 0;
}

static const struct option long_opts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ "timeout", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int ch;
	char *end;

	/* '+': stop at the command, its --flags are its own */
	while ((ch = getopt_long(argc, argv, "+s:jt:hV", long_opts, NULL)) != -1) {
		switch (ch) {
		case 's': o->socket = optarg; break;
		case 'j': o->json = true; break;
		case 't':
			o->timeout_s = (int)strtol(optarg, &end, 10);
			if (*end || o->timeout_s < 0)
				return -1;
			o->timeout_set = true;
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("ibsmctl %s (protocol %d)\n", PACKAGE_VERSION, CTL_PROTOCOL_VERSION); exit(0);
		default: return -1;
		}
	}
	return 0;
}

/* --json (or -j) after the command means the same as before it: no
 * command takes an argument of that name. */
static int take_json_flag(int argc, char **argv, struct opts *o)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0)
			o->json = true;
		else
			argv[n++] = argv[i];
	}
	return n;
}

int main(int argc, char **argv)
{
	struct opts o = { .socket = CTL_DEFAULT_SOCKET, .timeout_s = 30 };
	const char *cmd;

	signal(SIGPIPE, SIG_IGN);
	if (parse_opts(argc, argv, &o) < 0 || optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[optind++];
	argc -= optind;
	argv += optind;
	argc = take_json_flag(argc, argv, &o);
	if (strcmp(cmd, "help") == 0)
		return cmd_help(&o, argc, argv);
	if (strcmp(cmd, "completion") == 0)
		return cmd_completion(argc, argv);
	if (strcmp(cmd, "watch") == 0)
		return argc ? EXIT_USAGE : cmd_watch(&o);
	if (strcmp(cmd, "topology") == 0)
		return cmd_topology(&o, argc, argv);
	if (!find_cmd(cmd))
		fprintf(stderr, "ibsmctl: \"%s\" is not a command this ibsmctl knows; asking ibsmd anyway\n", cmd);
	return run_remote(&o, cmd, argc, argv);
}

/*
 * DOC: configuration reload (SIGHUP and the "reload" command).
 *
 * Transactional: the file is parsed into a fresh struct sm_conf and
 * validated; on any error the running configuration stays as it is and the
 * errors go back to whoever asked. Otherwise conf_diff() lists the changed
 * options: reloadable ones are copied into the running configuration and
 * their side effects applied (log level, sweep timers, the MAD engine's
 * window, caps, timeout and retries), the others are
 * reported as needing a restart and left alone.
 *
 * Options given with -o on the command line win over the file: at start we
 * note which options differ from what the file alone gives, and a reload
 * keeps their running values.
 */
#include "config.h"

#include <event2/event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "ctl/ctl_int.h"
#include "sm/light.h"
#include "lib/log.h"
#include "sm/sm.h"
#include "sm/tablephases.h"

struct reload_state {
	char *path;
	bool missing_at_start;          /* the daemon ran on defaults */
	const struct conf_opt **pinned; /* set by -o */
	size_t npinned;
	struct event *ev_sweep, *ev_light;  /* ours, when reload created them */
};

static struct reload_state rs;

void ctl_set_config_path(const char *path)
{
	free(rs.path);
	rs.path = path ? xstrdup(path) : NULL;
}

/* Parse the file (or take the defaults when it is absent and was absent at
 * start). Returns the number of errors, messages in err. */
static int load(struct sm_conf *c, char *err, size_t errlen)
{
	struct conf_errors errs;
	int n;

	if (!rs.path || (rs.missing_at_start && access(rs.path, F_OK) != 0)) {
		conf_defaults(c);
		return 0;
	}
	conf_errors_init(&errs);
	n = conf_load_file(c, rs.path, &errs);
	if (n > 0 && err) {
		size_t used = 0;

		err[0] = '\0';
		for (size_t i = 0; i < errs.n && used + 1 < errlen; i++)
			used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? "; " : "",
						 errs.msg[i]);
	}
	conf_errors_free(&errs);
	return n;
}

static bool same_value(const struct sm_conf *a, const struct sm_conf *b, const struct conf_opt *o)
{
	char x[2048], y[2048];

	conf_format_value(a, o, x, sizeof(x));
	conf_format_value(b, o, y, sizeof(y));
	return strcmp(x, y) == 0;
}

void ctl_reload_init(struct sm *sm, const char *path)
{
	struct sm_conf file;

	if (path && !rs.path)
		ctl_set_config_path(path);
	rs.missing_at_start = !rs.path || access(rs.path, F_OK) != 0;
	if (load(&file, NULL, 0) > 0) {
		conf_free(&file);
		return;
	}
	rs.pinned = xcalloc(conf_opt_count(), sizeof(*rs.pinned));
	for (size_t i = 0; i < conf_opt_count(); i++)
		if (!same_value(&sm->conf, &file, conf_opt_at(i)))
			rs.pinned[rs.npinned++] = conf_opt_at(i);
	conf_free(&file);
}

void ctl_reload_fini(void)
{
	free(rs.path);
	free(rs.pinned);
	if (rs.ev_sweep)
		event_free(rs.ev_sweep);
	if (rs.ev_light)
		event_free(rs.ev_light);
	memset(&rs, 0, sizeof(rs));
}

/* Copies one option's value from src to dst, through the table's offset. */
static void copy_opt(struct sm_conf *dst, const struct sm_conf *src, const struct conf_opt *o)
{
	char *d = (char *)dst + o->off;
	const char *s = (const char *)src + o->off;

	switch (o->type) {
	case CONF_BOOL: memcpy(d, s, sizeof(bool)); break;
	case CONF_UINT: memcpy(d, s, sizeof(unsigned)); break;
	case CONF_HEX: memcpy(d, s, sizeof(uint64_t)); break;
	case CONF_ENUM: memcpy(d, s, sizeof(int)); break;
	case CONF_STRING: {
		char **dp = (char **)(void *)d;
		char *const *sp = (char *const *)(const void *)s;

		free(*dp);
		*dp = xstrdup(*sp);
		break;
	}
	case CONF_GUIDS: {
		struct conf_guids *dg = (struct conf_guids *)(void *)d;
		const struct conf_guids *sg = (const struct conf_guids *)(const void *)s;

		free(dg->v);
		dg->n = sg->n;
		dg->v = sg->n ? xmalloc(sg->n * sizeof(*sg->v)) : NULL;
		if (sg->n)
			memcpy(dg->v, sg->v, sg->n * sizeof(*sg->v));
		break;
	}
	}
}

static void on_sweep(evutil_socket_t fd, short what, void *arg)
{
	ctl_start_sweep(arg, false);
}

static void on_light(evutil_socket_t fd, short what, void *arg)
{
	sm_light_sweep(arg);
	sm_arm_engine_timer(arg);
}

/* Periodic timers: daemon/main.c's when it made one, else ours. */
static void rearm(struct sm *sm, struct event *theirs, struct event **ours,
		  event_callback_fn fn, unsigned interval)
{
	struct timeval iv = { (time_t)interval, 0 };
	struct event *ev = theirs ? theirs : *ours;

	if (sm->run.once)
		return;
	if (!ev)
		ev = *ours = event_new(sm->base, -1, EV_PERSIST, fn, sm);
	event_del(ev);
	if (interval)
		event_add(ev, &iv);
}

/* Side effects of a changed reloadable option. Returns false when the new
 * value is stored but only takes effect at the next start. */
static bool apply_live(struct sm *sm, const struct conf_opt *o)
{
	if (strcmp(o->name, "log_level") == 0)
		log_set_level(LOG_LVL_ERR + sm->conf.log_level);
	else if (strcmp(o->name, "sweep_interval") == 0)
		rearm(sm, sm->ev_sweep, &rs.ev_sweep, on_sweep, sm->conf.sweep_interval);
	else if (strcmp(o->name, "light_sweep_interval") == 0)
		rearm(sm, sm->ev_light, &rs.ev_light, on_light, sm->conf.light_sweep_interval);
	else if ((strncmp(o->name, "smp_", 4) == 0 || strcmp(o->name, "perfmgr_window") == 0) &&
		 sm->eng)
		sm_smp_limits_apply(sm);
	return true;
}

static json_object *apply(struct sm *sm, struct sm_conf *nw)
{
	size_t max = conf_opt_count();
	struct conf_change *ch = xcalloc(max, sizeof(*ch));
	json_object *applied = json_object_new_array(), *restart = json_object_new_array();
	json_object *later = json_object_new_array(), *res = json_object_new_object();
	int n;

	n = conf_diff(&sm->conf, nw, ch, max);
	for (int i = 0; i < n && (size_t)i < max; i++) {
		const struct conf_opt *o = ch[i].opt;

		if (ch[i].needs_restart) {
			json_object_array_add(restart, json_object_new_string(o->name));
			continue;
		}
		copy_opt(&sm->conf, nw, o);
		json_object_array_add(apply_live(sm, o) ? applied : later, json_object_new_string(o->name));
	}
	free(ch);
	json_object_object_add(res, "file", rs.path ? json_object_new_string(rs.path) : NULL);
	json_object_object_add(res, "applied", applied);
	json_object_object_add(res, "restart_needed", restart);
	json_object_object_add(res, "applied_at_restart", later);
	return res;
}

int ctl_reload(struct sm *sm, json_object **result, char *err, size_t errlen)
{
	struct sm_conf nw;

	bool loaded = load(&nw, err, errlen) == 0;

	/* -o options keep their values, also for the partitions file staged next */
	for (size_t i = 0; loaded && i < rs.npinned; i++)
		copy_opt(&nw, &sm->conf, rs.pinned[i]);
	if (!loaded || sm_tables_reload_check(sm, &nw, err, errlen) < 0) {
		conf_free(&nw);
		log_warnx("reload rejected, configuration unchanged: %s", err);
		return -1;
	}
	*result = apply(sm, &nw);
	sm_tables_reload_commit(sm, *result);   /* partitions; sweeps if tables change */
	conf_free(&nw);
	log_notice("configuration reloaded: %s", json_object_to_json_string_ext(*result,
		   JSON_C_TO_STRING_PLAIN));
	ctl_reloaded(json_object_get(*result));
	return 0;
}

void ctl_reload_signal(struct sm *sm)
{
	json_object *r = NULL;
	char err[1024];

	if (ctl_reload(sm, &r, err, sizeof(err)) == 0)
		json_object_put(r);
}

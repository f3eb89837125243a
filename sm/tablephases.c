/*
 * DOC: the table phases of a sweep in order, their state's lifetime and
 * reload, and the PortInfo Set they share (see tablephases.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/guidtab.h"
#include "sm/ar.h"
#include "lib/log.h"
#include "sm/mcast.h"
#include "sm/phase.h"
#include "sm/pkey.h"
#include "sm/qos.h"
#include "sm/sm.h"
#include "sm/sweep.h"
#include "sm/tablephases.h"

/* --- ports that ignore a PortInfo field ---------------------------------- */

/* Ports that ignore a field: node GUID, port, enum tables_pi_field bits. */
struct ignored {
	struct guidtab_key key;
	unsigned fields;
};

static struct guidtab ign;

static void ign_add(const struct sm_port *p, unsigned field)
{
	struct ignored *e;

	if (!ign.elem)
		guidtab_init(&ign, sizeof(struct ignored));
	e = guidtab_get(&ign, p->node->guid, p->num);
	e->fields |= field;
}

bool tables_pi_ignored(const struct sm_port *p, enum tables_pi_field field)
{
	const struct ignored *e = guidtab_find(&ign, p->node->guid, p->num);

	return e && (e->fields & field);
}

static void ign_free(void)
{
	guidtab_free(&ign);
}

/* --- the tables, in order ------------------------------------------------------ */

/*
 * One table: its sweep phase and its state's lifetime; a member left NULL
 * has nothing to do there. Each row's functions live in the table's own
 * file, so a new table is that file and one row below.
 */
struct table_ops {
	const char *name;
	/* The phase: a diff against what the ports hold; then done(sm). NULL
	 * when the table is written elsewhere in the sweep. */
	void (*run)(struct sm *sm, void (*done)(struct sm *));
	/* At start: 0, or -1 with the errors written to err (the daemon stops). */
	int (*init)(struct sm *sm, FILE *err);
	void (*free)(struct sm *sm);
	/* Reload, step 1: check what nw names; 0, or -1 with the errors in
	 * err. Nothing changes either way. */
	int (*reload_check)(struct sm *sm, const struct sm_conf *nw, char *err, size_t errlen);
	/* Step 2, with the new configuration in sm->conf: apply what step 1
	 * checked, add its keys to result; true when the table must be
	 * written again (a heavy sweep). */
	bool (*reload_apply)(struct sm *sm, json_object *result);
	/* Options whose change needs this table written again (NULL ends the
	 * list; a name ending in '*' is a prefix). */
	const char *const *options;
};

static const char *const pkey_options[] = {
	"part_enforce", "allow_both_pkeys", "partitions_file", NULL
};
static const char *const qos_options[] = { "qos*", NULL };

/* Init runs down the rows (multicast makes the partitions' groups, so it
 * comes after P_Key), free back up. */
static const struct table_ops tables[] = {
	/* P_KeyTables go out with the bring-up, port by port: no phase here. */
	{ .name = "P_Key", .init = sm_pkey_init, .free = sm_pkey_free,              /* sm/pkey.c */
	  .reload_check = sm_pkey_reload_check, .reload_apply = sm_pkey_reload_apply,
	  .options = pkey_options },
	{ .name = "QoS", .run = sm_qos_phase, .free = sm_qos_free,                  /* sm/qos.c */
	  .options = qos_options },
	{ .name = "multicast", .run = sm_mcast_phase, .init = sm_mcast_init,       /* sm/mcast.c */
	  .free = sm_mcast_free, .reload_apply = sm_mcast_reload_apply },
	{ .name = "AR", .run = sm_ar_phase, .free = sm_ar_free },                   /* sm/ar.c */
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static void next_table(struct sm *sm)
{
	const struct table_ops *t;

	while (sm->tables_at < NTABLES && !tables[sm->tables_at].run)
		sm->tables_at++;
	if (sm->tables_at == NTABLES) {
		sm->tables_done(sm);
		return;
	}
	t = &tables[sm->tables_at++];
	t->run(sm, next_table);
}

void sm_tables_phase(struct sm *sm, void (*done)(struct sm *))
{
	sm->tables_at = 0;
	sm->tables_done = done;
	next_table(sm);
}

/* --- lifetime and reload ------------------------------------------------------- */

int sm_tables_init(struct sm *sm, FILE *err)
{
	for (size_t i = 0; i < NTABLES; i++)
		if (tables[i].init && tables[i].init(sm, err) < 0)
			return -1;
	return 0;
}

void sm_tables_free(struct sm *sm)
{
	for (size_t i = NTABLES; i-- > 0;)
		if (tables[i].free)
			tables[i].free(sm);
	ign_free();
}

int sm_tables_reload_check(struct sm *sm, const struct sm_conf *nw, char *err, size_t errlen)
{
	for (size_t i = 0; i < NTABLES; i++)
		if (tables[i].reload_check && tables[i].reload_check(sm, nw, err, errlen) < 0)
			return -1;
	return 0;
}

/* Options that need a heavy sweep but belong to no table: the switches'
 * LifeTimeValue, which the bring-up writes into SwitchInfo. */
static const char *const sweep_options[] = { "packet_life_time", NULL };

static bool option_in(const char *name, const char *const *list)
{
	for (; list && *list; list++) {
		size_t n = strlen(*list);

		if ((*list)[n - 1] == '*' ? !strncmp(name, *list, n - 1) : !strcmp(name, *list))
			return true;
	}
	return false;
}

/* Options whose change needs the tables (or SwitchInfo) reprogrammed. */
static bool tables_option(const char *name)
{
	for (size_t i = 0; i < NTABLES; i++)
		if (option_in(name, tables[i].options))
			return true;
	return option_in(name, sweep_options);
}

static bool options_changed(json_object *result)
{
	json_object *applied;

	if (!json_object_object_get_ex(result, "applied", &applied))
		return false;
	for (size_t i = 0; i < json_object_array_length(applied); i++)
		if (tables_option(json_object_get_string(json_object_array_get_idx(applied, i))))
			return true;
	return false;
}

void sm_tables_reload_commit(struct sm *sm, json_object *result)
{
	bool sweep = false;

	for (size_t i = 0; i < NTABLES; i++)
		if (tables[i].reload_apply && tables[i].reload_apply(sm, result))
			sweep = true;
	sweep = sweep || options_changed(result);
	json_object_object_add(result, "tables_sweep", json_object_new_boolean(sweep));
	if (sweep) {
		log_notice("reload: partitions or table options changed, sweeping");
		sm_sweep_request(sm);
	}
}

/* --- shared helpers ----------------------------------------------------------- */

struct pi_ctx {
	struct sm *sm;
	struct sm_port *p;
	enum tables_pi_field field;
	struct smp_port_info want;
};

static const char *field_name(enum tables_pi_field f)
{
	return f == TF_ENFORCE ? "partition enforcement" : "VLHighLimit";
}

static bool field_taken(enum tables_pi_field f, const struct smp_port_info *want,
			const struct smp_port_info *got)
{
	if (f == TF_ENFORCE)
		return got->part_enf_inbound == want->part_enf_inbound &&
		       got->part_enf_outbound == want->part_enf_outbound;
	return got->vl_high_limit == want->vl_high_limit;
}

void tables_pi_check(const struct sm_port *p, const struct smp_port_info *want,
		     const struct smp_port_info *got, enum tables_pi_field field)
{
	if (field_taken(field, want, got))
		return;
	ign_add(p, field);
	log_debug("%016llx port %u ignores %s; not setting it again",
		  (unsigned long long)p->node->guid, p->num, field_name(field));
}

static void pi_done(void *arg, int err, const struct smp *resp)
{
	struct pi_ctx *c = arg;
	struct sm *sm = c->sm;
	struct smp_port_info pi;

	if (err == MAD_OK && smp_port_info_decode(resp->data, sizeof(resp->data), &pi) == 0) {
		c->p->pi = pi;
		tables_pi_check(c->p, &c->want, &pi, c->field);
	} else {
		sm->sweep_clean = false;
		sm->st.errors++;
		log_fabric(LOG_LVL_WARNING, "PortInfo Set (%s) to %016llx \"%s\" port %u failed (%d)",
			   field_name(c->field), (unsigned long long)c->p->node->guid,
			   c->p->node->desc, c->p->num, err);
	}
	free(c);
	sm_phase_put(sm);
}

void tables_pi_set(struct sm *sm, struct sm_port *p, const struct smp_port_info *w,
		   enum tables_pi_field field)
{
	struct pi_ctx *c = xcalloc(1, sizeof(*c));
	struct smp_port_info v = *w;
	struct mad_req r;

	smp_port_info_no_change(&v);
	c->sm = sm;
	c->p = p;
	c->field = field;
	c->want = *w;
	sm_port_req(sm, p, MAD_METHOD_SET, SMP_ATTR_PORT_INFO, p->num, &r);
	smp_port_info_encode(&v, r.data, sizeof(r.data));
	if (sm_submit(sm, &r, pi_done, c) < 0)
		free(c);
}

bool tables_port_fresh(const struct sm_port *p)
{
	const struct sm_node *n = p->node;

	if (p->num || !node_is_switch(n))
		return !p->have_pi || p->pi.port_state != TOPO_PORT_ACTIVE;
	for (unsigned k = 1; k <= n->ni.num_ports; k++)
		if (n->ports[k].peer && n->ports[k].have_pi &&
		    n->ports[k].pi.port_state == TOPO_PORT_ACTIVE)
			return false;
	return true;
}

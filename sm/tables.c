/*
 * DOC: the table phases of a sweep in order, their state's lifetime and
 * reload, and the PortInfo Set they share (see tables.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sm/ar.h"
#include "sm/log.h"
#include "sm/mcast.h"
#include "sm/pkey.h"
#include "sm/qos.h"
#include "sm/sm.h"
#include "sm/tables.h"

/* --- ports that ignore a PortInfo field ---------------------------------- */

/* Ports that ignore a field: node GUID, port, enum tables_pi_field bits. */
struct ignored {
	uint64_t guid;
	uint8_t num;
	unsigned fields;
};

static struct ignored *ign;
static size_t ign_size, ign_count;

static size_t ign_slot(uint64_t guid, uint8_t num)
{
	size_t i = (size_t)(((guid ^ num) * 0x9e3779b97f4a7c15ULL) >> 24) & (ign_size - 1);

	while (ign[i].guid && (ign[i].guid != guid || ign[i].num != num))
		i = (i + 1) & (ign_size - 1);
	return i;
}

static void ign_add(const struct sm_port *p, unsigned field)
{
	size_t i;

	if (2 * (ign_count + 1) > ign_size) {
		struct ignored *old = ign;
		size_t n = ign_size;

		ign_size = n ? 2 * n : 64;
		ign = xcalloc(ign_size, sizeof(*ign));
		for (size_t k = 0; k < n; k++)
			if (old[k].guid)
				ign[ign_slot(old[k].guid, old[k].num)] = old[k];
		free(old);
	}
	i = ign_slot(p->node->guid, p->num);
	if (!ign[i].guid) {
		ign[i].guid = p->node->guid;
		ign[i].num = p->num;
		ign_count++;
	}
	ign[i].fields |= field;
}

bool tables_pi_ignored(const struct sm_port *p, enum tables_pi_field field)
{
	size_t i;

	if (!ign_size)
		return false;
	i = ign_slot(p->node->guid, p->num);
	return ign[i].guid && (ign[i].fields & field);
}

static void ign_free(void)
{
	free(ign);
	ign = NULL;
	ign_size = ign_count = 0;
}

/* --- the phases, in order ------------------------------------------------------ */

static void mcast_done(struct sm *sm)
{
	sm_ar_phase(sm);
}

static void qos_done(struct sm *sm)
{
	sm_mcast_phase(sm, mcast_done);
}

void sm_tables_phase(struct sm *sm)
{
	sm_qos_phase(sm, qos_done);
}

/* --- lifetime and reload ------------------------------------------------------- */

int sm_tables_init(struct sm *sm, FILE *err)
{
	if (sm_pkey_init(sm, err) < 0)
		return -1;
	sm_mcast_init(sm);
	return 0;
}

void sm_tables_free(struct sm *sm)
{
	sm_mcast_free(sm);
	sm_pkey_free(sm);
	sm_qos_free(sm);
	ign_free();
}

static struct part_config staged;
static bool have_staged;

int sm_tables_reload_check(struct sm *sm, const struct sm_conf *nw, char *err, size_t errlen)
{
	char msg[2048];

	if (have_staged)
		part_config_free(&staged);
	have_staged = false;
	if (sm_pkey_stage(nw->partitions_file, &staged, msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "partitions file rejected: %s", msg);
		part_config_free(&staged);
		return -1;
	}
	have_staged = true;
	return 0;
}

/* Options whose change needs the tables (or SwitchInfo) reprogrammed. */
static bool tables_option(const char *name)
{
	return !strncmp(name, "qos", 3) || !strcmp(name, "part_enforce") ||
	       !strcmp(name, "allow_both_pkeys") || !strcmp(name, "partitions_file") ||
	       !strcmp(name, "packet_life_time");
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
	bool parts = have_staged && sm_pkey_commit(sm, &staged);
	bool sweep = parts || options_changed(result);

	have_staged = false;
	sm_mcast_partitions(sm);   /* their groups, and the SL they carry */
	json_object_object_add(result, "partitions",
			       json_object_new_string(parts ? "changed" : "unchanged"));
	json_object_object_add(result, "tables_sweep", json_object_new_boolean(sweep));
	if (sweep) {
		log_notice("reload: partitions or table options changed, sweeping");
		sm_sweep_start(sm);
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

	/* IBA 14.2.5.6: 0 means "no change" in these fields of a Set. */
	v.port_state = TOPO_PORT_NOCHANGE;
	v.phys_state = 0;
	v.link_down_def_state = 0;
	v.link_speed_enabled = 0;
	v.link_width_enabled = 0;
	v.link_speed_ext_enabled = 0;
	v.client_reregister = 0;
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

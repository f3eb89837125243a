/*
 * DOC: the discovered fabric in ibnetdiscover's text format.
 *
 * Written so tests can compare our discovery with ibnetdiscover run against
 * the same fabric, and so ibsm-route can read it back. One record per node:
 * the GUID lines, a header `Switch N "S-<guid>"` or `Ca N "H-<guid>"`, then
 * one line per connected port. Written to a temporary file and renamed, so a
 * reader never sees half a dump.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "routing/routing.h"
#include "fabric/fabric.h"
#include "lib/log.h"

static const char *node_name_prefix(const struct sm_node *n)
{
	return node_is_switch(n) ? "S" : "H";
}

static uint16_t node_lid(const struct sm_node *n, const struct sm_port *p)
{
	const struct sm_port *lp = node_is_switch(n) ? &n->ports[0] : p;

	if (lp->lid)
		return lp->lid;
	return lp->have_pi ? lp->pi.lid : 0;
}

static void dump_port(FILE *out, const struct sm_node *n, const struct sm_port *p)
{
	const struct sm_port *q = p->peer;
	const struct sm_node *m = q->node;

	fprintf(out, "[%u]", p->num);
	if (!node_is_switch(n))
		fprintf(out, "(%llx)", (unsigned long long)p->guid);
	fprintf(out, "\t\"%s-%016llx\"[%u]", node_name_prefix(m), (unsigned long long)m->guid, q->num);
	if (!node_is_switch(m))
		fprintf(out, "(%llx)", (unsigned long long)q->guid);
	fprintf(out, "\t\t# ");
	if (!node_is_switch(n))
		fprintf(out, "lid %u lmc %u ", node_lid(n, p), p->have_pi ? p->pi.lmc : 0);
	fprintf(out, "\"%s\" lid %u %s%s\n", m->desc, node_lid(m, q),
		port_width_name(p->pi.link_width_active), port_speed_name(&p->pi));
}

static void dump_node(FILE *out, const struct sm_node *n)
{
	const char *kind = node_is_switch(n) ? "Switch" : "Ca";

	fprintf(out, "vendid=0x%x\ndevid=0x%x\nsysimgguid=0x%llx\n", n->ni.vendor_id,
		n->ni.device_id, (unsigned long long)n->ni.sys_image_guid);
	if (node_is_switch(n))
		fprintf(out, "switchguid=0x%llx(%llx)\n", (unsigned long long)n->guid,
			(unsigned long long)n->ni.port_guid);
	else
		fprintf(out, "caguid=0x%llx\n", (unsigned long long)n->guid);
	fprintf(out, "%s\t%u \"%s-%016llx\"\t\t# \"%s\"", kind, n->ni.num_ports,
		node_name_prefix(n), (unsigned long long)n->guid, n->desc);
	if (node_is_switch(n))
		fprintf(out, " base port 0 lid %u lmc 0", node_lid(n, &n->ports[0]));
	fputc('\n', out);
	for (unsigned p = 1; p <= n->ni.num_ports; p++)
		if (n->ports[p].peer)
			dump_port(out, n, &n->ports[p]);
	fputc('\n', out);
}

int fabric_dump_ibnet(const struct sm_fabric *f, const char *path)
{
	size_t len = strlen(path) + 8;
	char *tmp = xmalloc(len);
	FILE *out;
	int err = 0;

	snprintf(tmp, len, "%s.tmp", path);
	out = fopen(tmp, "w");
	if (!out) {
		err = -errno;
		free(tmp);
		return err;
	}
	fprintf(out, "#\n# Topology file: written by ibsmd\n#\n");
	if (f->sm_node)
		fprintf(out, "# Initiated from node %016llx port %016llx\n\n",
			(unsigned long long)f->sm_node->guid,
			(unsigned long long)f->sm_node->ports[f->sm_port_num].guid);
	for (uint32_t i = 0; i < f->nnodes; i++)
		dump_node(out, f->nodes[i]);
	if (ferror(out))
		err = -EIO;
	if (fclose(out) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) != 0)
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

/* The switch LFTs ibsmd computed, in ibroute's output format (one block per
 * switch, LIDs 0..LinearFDBTop, unrouted LIDs left out), so a test can diff
 * them against `ibroute` run on the live fabric. */
static void lft_dest(FILE *out, const struct sm_fabric *f, uint16_t lid, uint16_t *owner_node,
		     uint8_t *owner_port)
{
	const struct sm_node *n;
	const struct sm_port *p;

	if (owner_node[lid] == UINT16_MAX) {
		fprintf(out, " : (unknown)\n");
		return;
	}
	n = f->nodes[owner_node[lid]];
	p = &n->ports[owner_port[lid]];
	fprintf(out, " : (%s portguid 0x%016llx: '%s')\n",
		node_is_switch(n) ? "Switch" : "Channel Adapter",
		(unsigned long long)(node_is_switch(n) ? n->ni.port_guid : p->guid), n->desc);
}

static void dump_one_lft(FILE *out, const struct sm_fabric *f, const struct route_tables *rt,
			 const struct sm_node *sw, uint16_t *owner_node, uint8_t *owner_port)
{
	const uint8_t *lft = rt->lft[sw->idx].ports;
	unsigned valid = 0;

	fprintf(out, "Unicast lids [0x0-0x%x] of switch Lid %u guid 0x%016llx (%s):\n", rt->top,
		sw->ports[0].lid, (unsigned long long)sw->guid, sw->desc);
	fprintf(out, "  Lid  Out   Destination\n       Port     Info \n");
	for (unsigned lid = 0; lft && lid <= rt->top; lid++) {
		if (lft[lid] == LFT_NO_PORT)
			continue;
		fprintf(out, "0x%04x %03u", lid, lft[lid]);
		lft_dest(out, f, (uint16_t)lid, owner_node, owner_port);
		valid++;
	}
	fprintf(out, "%u valid lids dumped \n", valid);
}

static void map_lid_owners(const struct sm_fabric *f, uint16_t *owner_node, uint8_t *owner_port)
{
	for (uint32_t i = 0; i < f->nnodes; i++) {
		const struct sm_node *n = f->nodes[i];

		for (unsigned p = 0; p <= n->ni.num_ports; p++) {
			const struct sm_port *sp = &n->ports[p];
			unsigned cnt = sp->lid ? 1u << (p ? sp->pi.lmc : 0) : 0;

			for (unsigned l = sp->lid; l < sp->lid + cnt && l <= TOPO_MAX_UCAST_LID; l++) {
				owner_node[l] = (uint16_t)i;
				owner_port[l] = (uint8_t)p;
			}
		}
	}
}

int fabric_dump_lfts(const struct sm_fabric *f, const struct route_tables *rt, const char *path)
{
	uint16_t *owner_node = xmalloc((TOPO_MAX_UCAST_LID + 1) * sizeof(*owner_node));
	uint8_t *owner_port = xcalloc(TOPO_MAX_UCAST_LID + 1, 1);
	FILE *out = fopen(path, "w");
	int err = 0;

	memset(owner_node, 0xff, (TOPO_MAX_UCAST_LID + 1) * sizeof(*owner_node));
	if (!out) {
		err = -errno;
	} else {
		map_lid_owners(f, owner_node, owner_port);
		for (uint32_t i = 0; i < f->nnodes; i++)
			if (node_is_switch(f->nodes[i]))
				dump_one_lft(out, f, rt, f->nodes[i], owner_node, owner_port);
		if (fclose(out) != 0)
			err = -errno;
	}
	free(owner_node);
	free(owner_port);
	return err;
}

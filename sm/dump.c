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

#include "sm/fabric.h"
#include "sm/log.h"

static const char *width_str(uint8_t w)
{
	switch (w) {
	case 1: return "1x";
	case 2: return "4x";
	case 4: return "8x";
	case 8: return "12x";
	case 16: return "2x";
	default: return "?x";
	}
}

static const char *speed_str(const struct smp_port_info *pi)
{
	static const char *const ext[] = { "", "FDR", "EDR", "HDR", "NDR", "XDR" };

	if (pi->link_speed_ext_active >= 1 && pi->link_speed_ext_active <= 5)
		return ext[pi->link_speed_ext_active];
	switch (pi->link_speed_active) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	default: return "?DR";
	}
}

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
		width_str(p->pi.link_width_active), speed_str(&p->pi));
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

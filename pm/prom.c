/*
 * DOC: the Prometheus page writer (see pm/prom.h).
 *
 * The page is a list of metric families; a family's lines must come
 * together (text format 0.0.4), so each family walks the port table once,
 * from the cursor it left. Lines are built in a fixed buffer: the longest,
 * an uplink_info line with two escaped node descriptions, fits it.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm/prom.h"

#define LINE_MAX_BYTES 1024

const double prom_sa_bounds[PROM_SA_NBUCKETS] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.1,
};

enum fam_kind { F_SM, F_INFO, F_UPLINK, F_COUNTER, F_PROBLEM, F_END };

struct fam {
	uint8_t kind;
	uint8_t sw;             /* switches, else CAs */
	uint8_t ctr;            /* F_COUNTER: enum pm_ctr */
};

#define NFAM (1 + 2 * (2 + PM_NCTR) + 1)

struct prom_writer {
	const struct pm *pm;
	struct prom_fabric fab;
	struct prom_sm_metrics sm;
	struct fam fams[NFAM + 1];
	unsigned f;             /* the family being written */
	bool head;              /* its HELP and TYPE lines are out */
	uint64_t guid;          /* cursor: the last port written */
	uint8_t port;
	size_t out;             /* bytes sunk in this step */
	prom_sink sink;
	void *arg;
};

static void families(struct prom_writer *w)
{
	unsigned n = 0;

	w->fams[n++] = (struct fam){ F_SM, 0, 0 };
	for (int sw = 1; sw >= 0; sw--) {
		w->fams[n++] = (struct fam){ F_INFO, (uint8_t)sw, 0 };
		w->fams[n++] = (struct fam){ F_UPLINK, (uint8_t)sw, 0 };
		for (unsigned c = 0; c < PM_NCTR; c++)
			w->fams[n++] = (struct fam){ F_COUNTER, (uint8_t)sw, (uint8_t)c };
	}
	w->fams[n++] = (struct fam){ F_PROBLEM, 0, 0 };
	w->fams[n] = (struct fam){ F_END, 0, 0 };
}

struct prom_writer *prom_writer_new(const struct pm *pm, const struct prom_fabric *fab,
				    const struct prom_sm_metrics *sm)
{
	struct prom_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->pm = pm;
	if (fab)
		w->fab = *fab;
	if (sm)
		w->sm = *sm;
	families(w);
	return w;
}

void prom_writer_free(struct prom_writer *w)
{
	free(w);
}

size_t prom_escape(const char *s, char *out, size_t cap)
{
	size_t n = 0;

	for (; *s && n + 3 <= cap; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == '"') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c == '\n') {
			out[n++] = '\\';
			out[n++] = 'n';
		} else {
			out[n++] = c >= 0x20 && c < 0x7F ? (char)c : '?';
		}
	}
	out[n] = '\0';
	return n;
}

__attribute__((format(printf, 2, 3)))
static void put(struct prom_writer *w, const char *fmt, ...)
{
	char line[LINE_MAX_BYTES];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	w->sink(w->arg, line, (size_t)n);
	w->out += (size_t)n;
}

static void head(struct prom_writer *w, const char *name, const char *type, const char *help)
{
	put(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* --- the SM's own metrics --- */

static void one(struct prom_writer *w, const char *name, const char *type, const char *help,
		double v)
{
	head(w, name, type, help);
	put(w, "%s %.17g\n", name, v);
}

static void sm_histogram(struct prom_writer *w)
{
	const struct prom_sm_metrics *m = &w->sm;

	head(w, "ibsmd_sa_request_duration_seconds", "histogram",
	     "Time from receipt of an SA request to its answer.");
	for (unsigned i = 0; i < PROM_SA_NBUCKETS; i++)
		put(w, "ibsmd_sa_request_duration_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
		    prom_sa_bounds[i], m->sa_latency_le[i]);
	put(w, "ibsmd_sa_request_duration_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
	    m->sa_latency_count);
	put(w, "ibsmd_sa_request_duration_seconds_sum %.17g\n", m->sa_latency_sum);
	put(w, "ibsmd_sa_request_duration_seconds_count %" PRIu64 "\n", m->sa_latency_count);
}

static void sm_state(struct prom_writer *w)
{
	static const char *const names[] = { "not_active", "discovering", "standby", "master" };

	head(w, "ibsmd_sm_state", "gauge", "1 for the SM's state (SMInfo:SMState), 0 for the others.");
	for (int i = 0; i < 4; i++)
		put(w, "ibsmd_sm_state{state=\"%s\"} %d\n", names[i], w->sm.sm_state == i);
}

static void sm_pm(struct prom_writer *w)
{
	struct pm_stats st;

	pm_get_stats(w->pm, &st);
	one(w, "ibsmd_pm_rounds_total", "counter", "Counter poll rounds done.", (double)st.rounds);
	one(w, "ibsmd_pm_queries_total", "counter", "PMA queries sent, re-asks included.",
	    (double)st.queries);
	one(w, "ibsmd_pm_queries_failed_total", "counter", "PMA queries that got no answer.",
	    (double)st.failed);
	one(w, "ibsmd_pm_clears_total", "counter", "PortCounters clears done before saturation.",
	    (double)st.clears);
	one(w, "ibsmd_pm_round_duration_seconds", "gauge", "Duration of the last poll round.",
	    (double)st.last_round_ms / 1000);
	one(w, "ibsmd_pm_ports", "gauge", "Ports whose counters are watched.", st.ports);
	head(w, "ibsmd_health_problems", "gauge", "Ports with each health problem.");
	for (unsigned p = 0; p < PM_NPROBLEM; p++)
		put(w, "ibsmd_health_problems{problem=\"%s\"} %u\n", pm_problem_name(p),
		    st.problems[p]);
}

static void sm_metrics(struct prom_writer *w)
{
	const struct prom_sm_metrics *m = &w->sm;

	one(w, "ibsmd_sweeps_total", "counter", "Heavy sweeps done.", (double)m->sweeps);
	one(w, "ibsmd_sweep_duration_seconds", "gauge", "Duration of the last heavy sweep.",
	    m->sweep_seconds);
	one(w, "ibsmd_smps_sent_total", "counter", "SMPs sent, retries included.",
	    (double)m->smps_sent);
	one(w, "ibsmd_smps_failed_total", "counter", "SMPs that failed after all retries.",
	    (double)m->smps_failed);
	one(w, "ibsmd_smps_retried_total", "counter", "SMP retries.", (double)m->smps_retried);
	one(w, "ibsmd_lft_blocks_written_total", "counter", "LFT blocks written to switches.",
	    (double)m->lft_blocks);
	one(w, "ibsmd_ports_active", "gauge", "Ports in the Active state.", m->ports_active);
	one(w, "ibsmd_isolated_links", "gauge", "Links routed around for their health.",
	    m->isolated_links);
	one(w, "ibsmd_sa_requests_total", "counter", "SA requests answered.",
	    (double)m->sa_requests);
	one(w, "ibsmd_sa_errors_total", "counter", "SA requests answered with an error status.",
	    (double)m->sa_errors);
	sm_histogram(w);
	one(w, "ibsmd_multicast_groups", "gauge", "Multicast groups.", m->mcast_groups);
	sm_state(w);
	one(w, "ibsmd_control_clients", "gauge", "Control-socket connections.", m->ctl_clients);
	sm_pm(w);
}

/* --- per node and per port --- */

static const char *kind_word(int sw)
{
	return sw ? "switch" : "hca";
}

static void node_info(struct prom_writer *w, const struct fam *f, const struct pm_port_view *v)
{
	struct prom_node n = { "", v->lid };
	char name[2 * sizeof(n.name)];

	if (w->guid == v->guid)
		return;         /* one line per node, at its first port */
	if (w->fab.node)
		w->fab.node(w->fab.arg, v->guid, &n);
	prom_escape(n.name, name, sizeof(name));
	put(w, "infiniband_%s_info{guid=\"0x%016" PRIx64 "\",%s=\"%s\",lid=\"%u\"} 1\n",
	    kind_word(f->sw), v->guid, kind_word(f->sw), name, n.lid);
}

static void uplink(struct prom_writer *w, const struct fam *f, const struct pm_port_view *v)
{
	struct prom_node n = { "", v->lid };
	struct prom_peer p;
	char name[2 * sizeof(n.name)], peer[2 * sizeof(p.name)];

	memset(&p, 0, sizeof(p));
	if (!w->fab.peer || !w->fab.peer(w->fab.arg, v->guid, v->port, &p))
		return;
	if (w->fab.node)
		w->fab.node(w->fab.arg, v->guid, &n);
	prom_escape(n.name, name, sizeof(name));
	prom_escape(p.name, peer, sizeof(peer));
	put(w, "infiniband_%s_uplink_info{guid=\"0x%016" PRIx64 "\",port=\"%u\",%s=\"%s\","
	    "uplink=\"%s\",uplink_guid=\"0x%016" PRIx64 "\",uplink_lid=\"%u\","
	    "uplink_port=\"%u\",uplink_type=\"%s\"} 1\n",
	    kind_word(f->sw), v->guid, v->port, kind_word(f->sw), name, peer, p.guid, p.lid,
	    p.port, p.is_switch ? "SW" : "CA");
}

static void counter(struct prom_writer *w, const struct fam *f, const struct pm_port_view *v)
{
	uint64_t x = v->total[f->ctr];

	/* never read (or not kept by this PMA): no sample rather than a 0 */
	if (!(v->valid & v->seen & PM_BIT(f->ctr)))
		return;
	if (f->ctr == PM_XMIT_DATA || f->ctr == PM_RCV_DATA)
		x = x > UINT64_MAX / 4 ? UINT64_MAX : x * 4;   /* IBA: octets divided by 4 */
	put(w, "infiniband_%s_port_%s_total{guid=\"0x%016" PRIx64 "\",port=\"%u\"} %" PRIu64 "\n",
	    kind_word(f->sw), pm_ctr_name(f->ctr), v->guid, v->port, x);
}

static void problems(struct prom_writer *w, const struct pm_port_view *v)
{
	for (unsigned p = 0; p < PM_NPROBLEM; p++)
		if (v->problems & PM_P_BIT(p))
			put(w, "ibsmd_port_problem{guid=\"0x%016" PRIx64 "\",port=\"%u\","
			    "problem=\"%s\"} 1\n", v->guid, v->port, pm_problem_name(p));
}

static void family_head(struct prom_writer *w, const struct fam *f)
{
	char name[128], help[128];
	const char *k = kind_word(f->sw);

	if (f->kind == F_INFO) {
		snprintf(name, sizeof(name), "infiniband_%s_info", k);
		head(w, name, "gauge", f->sw ? "Infiniband switch information"
					     : "Infiniband HCA information");
	} else if (f->kind == F_UPLINK) {
		snprintf(name, sizeof(name), "infiniband_%s_uplink_info", k);
		head(w, name, "gauge", f->sw ? "Infiniband switch uplink information"
					     : "Infiniband HCA uplink information");
	} else if (f->kind == F_COUNTER) {
		snprintf(name, sizeof(name), "infiniband_%s_port_%s_total", k, pm_ctr_name(f->ctr));
		snprintf(help, sizeof(help), "Infiniband %s port %s", f->sw ? "switch" : "HCA",
			 pm_ctr_name(f->ctr));
		head(w, name, "counter", help);
	} else {
		head(w, "ibsmd_port_problem", "gauge", "1 for each health problem of a port.");
	}
}

static void row(struct prom_writer *w, const struct fam *f, const struct pm_port_view *v)
{
	if (f->kind == F_PROBLEM)
		problems(w, v);
	else if (v->is_switch != f->sw)
		return;
	else if (f->kind == F_INFO)
		node_info(w, f, v);
	else if (f->kind == F_UPLINK)
		uplink(w, f, v);
	else
		counter(w, f, v);
}

/* Writes family f's lines from the cursor until the budget is spent;
 * true when the family is done. */
static bool family(struct prom_writer *w, const struct fam *f, size_t budget)
{
	struct pm_port_view v;

	if (f->kind == F_SM) {
		sm_metrics(w);
		return true;
	}
	if (!w->head) {
		family_head(w, f);
		w->head = true;
	}
	while (w->out < budget && pm_port_next(w->pm, w->guid, w->port, &v)) {
		row(w, f, &v);
		w->guid = v.guid;
		w->port = v.port;
	}
	return w->out < budget;
}

bool prom_writer_step(struct prom_writer *w, size_t budget, prom_sink sink, void *arg)
{
	w->sink = sink;
	w->arg = arg;
	w->out = 0;
	while (w->fams[w->f].kind != F_END && w->out < budget) {
		if (!family(w, &w->fams[w->f], budget))
			break;
		w->f++;
		w->head = false;
		w->guid = 0;
		w->port = 0;
	}
	return w->fams[w->f].kind != F_END;
}

/*
 * DOC: sm/sminfo.c through the fake transport: SMInfo answers, the
 * election after a scan, standby polling and takeover, handover in both
 * directions, rogue SMInfo Sets, and the rule that only a master writes.
 *
 * The fixture is a minimal SM (as test_engine.c builds its engine): a
 * real MAD engine on the fake transport and fake clock, a real libevent
 * base for the poll timer, and a four-node fabric: switch S (LID 1), our
 * CA U on S[1] (LID 2), another SM's CA M on S[2] (LID 3), a plain host R
 * on S[3] (LID 4). The rest of the SM (the sweep pipeline) is stubbed
 * below and only counted.
 */
#include "config.h"

#include <event2/event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/clock.h"
#include "mad/engine.h"
#include "mad/smp.h"
#include "lib/log.h"
#include "sm/sm.h"
#include "sm/sminfo.h"
#include "sm/sweep.h"
#include "tests/unit/fake_transport.h"

#define G_SW 0x200ULL
#define G_US 0x101ULL          /* our port GUID (node 0x100) */
#define G_M 0x111ULL           /* the other SM's port (node 0x110) */
#define G_R 0x121ULL           /* a plain host's port (node 0x120) */
#define KEY 1ULL
#define STATUS_BAD_VALUE 0x001C

static struct fx {
	struct sm sm;
	struct fake_tp ft;
	unsigned sweeps, lids_phases, standing_by;
} fx;

/* --- stubs of the rest of the SM --- */

void sm_event(struct sm *sm, const char *type, const struct sm_port *p)
{
	(void)sm, (void)type, (void)p;
}

void sm_sweep_request(struct sm *sm)
{
	(void)sm;
	fx.sweeps++;
}

/* The sweep after the election: its LID phase (master) or its end
 * (standby). */
static void elected(struct sm *sm)
{
	if (sm_is_master(sm)) {
		fx.lids_phases++;
		return;
	}
	sm->sweeping = false;
	fx.standing_by++;
}

void sm_arm_engine_timer(struct sm *sm)
{
	(void)sm;
}

int sm_submit(struct sm *sm, const struct mad_req *r, mad_done_fn cb, void *arg)
{
	if (mad_engine_submit(sm->eng, r, cb, arg) < 0)
		return -1;
	sm->pending++;
	return 0;
}

void sm_port_req(const struct sm *sm, const struct sm_port *p, uint8_t method, uint16_t attr,
		 uint32_t mod, struct mad_req *r)
{
	const struct sm_node *sw = p->peer->node;

	memset(r, 0, sizeof(*r));
	r->mgmt_class = MAD_CLASS_SMI_DR;
	r->method = method;
	r->attr_id = attr;
	r->attr_mod = mod;
	r->mkey = sm->conf.m_key;
	r->dlid = LID_PERMISSIVE;
	memcpy(r->path, sw->path, sizeof(r->path));
	r->hop_cnt = (uint8_t)(sw->hop_cnt + 1);
	r->path[r->hop_cnt] = p->peer->num;
}

/* --- the fixture --- */

static struct sm_node *add(struct sm_fabric *f, uint8_t type, uint64_t node, uint64_t port,
			   unsigned nports, uint16_t lid)
{
	struct smp_node_info ni = { .node_type = type, .num_ports = (uint8_t)nports,
				    .node_guid = node, .port_guid = port };
	struct sm_node *n = fabric_add(f, &ni);

	n->reachable = true;
	for (unsigned k = type == TOPO_SWITCH ? 0 : 1; k <= nports; k++) {
		n->ports[k].guid = port;
		n->ports[k].have_pi = true;
		n->ports[k].pi.lid = lid;
		n->ports[k].lid = lid;
		n->ports[k].pi.port_state = TOPO_PORT_ACTIVE;
	}
	return n;
}

static int setup(void **state)
{
	struct sm *sm = &fx.sm;
	struct mad_engine_opts o;
	struct sm_fabric *f;
	struct sm_node *s, *u, *m, *r;

	(void)state;
	memset(&fx, 0, sizeof(fx));
	log_init(LOG_LVL_ERR, 0);
	sm->conf.sm_priority = 5;
	sm->conf.sm_key = KEY;
	sm->conf.sm_poll_interval = 4;
	sm->conf.sm_poll_retries = 2;
	sm->port.port_guid = G_US;
	fake_tp_init(&fx.ft, &sm->tp);
	mad_engine_opts_default(&o);
	o.retries = 0;                  /* one lost MAD fails the request */
	o.now_ms = fake_tp_now;
	o.now_arg = &fx.ft;
	o.set_gate = sm_set_gate;
	o.set_gate_arg = sm;
	sm->eng = mad_engine_new(&sm->tp, &o);
	clock_fake(fake_tp_now, &fx.ft);   /* sminfo.c's polls run on it too */
	sm->base = event_base_new();
	f = fabric_new();
	s = add(f, TOPO_SWITCH, G_SW, G_SW, 8, 1);
	u = add(f, TOPO_CA, 0x100, G_US, 1, 2);
	m = add(f, TOPO_CA, 0x110, G_M, 1, 3);
	r = add(f, TOPO_CA, 0x120, G_R, 1, 4);
	fabric_link(f, u, 1, s, 1);
	fabric_link(f, m, 1, s, 2);
	fabric_link(f, r, 1, s, 3);
	s->hop_cnt = 1;
	s->path[1] = 1;
	m->ports[1].pi.cap_mask = 0x2;  /* IsSM */
	f->sm_node = u;
	f->sm_port_num = 1;
	sm->fabric = f;
	sm->state = SM_STATE_DISCOVERING;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sm_sminfo_fini(&fx.sm);
	mad_engine_free(fx.sm.eng);
	fake_tp_fini(&fx.ft);
	fabric_free(fx.sm.fabric);
	event_base_free(fx.sm.base);
	clock_fake(NULL, NULL);
	return 0;
}

static struct smp sent(size_t i)
{
	struct smp s;

	assert_true(i < fx.ft.nsent);
	assert_int_equal(smp_decode(fx.ft.sent[i].buf, fx.ft.sent[i].len, &s), 0);
	return s;
}

static struct smp_sm_info sent_info(size_t i)
{
	struct smp s = sent(i);
	struct smp_sm_info si;

	assert_int_equal(smp_sm_info_decode(s.data, sizeof(s.data), &si), 0);
	return si;
}

static unsigned sets_sent(void)
{
	unsigned n = 0;

	for (size_t i = 0; i < fx.ft.nsent; i++)
		n += sent(i).hdr.method == MAD_METHOD_SET;
	return n;
}

/* Answer sent MAD i with this SMInfo (status 0 unless given). */
static void answer(size_t i, const struct smp_sm_info *si, uint16_t status)
{
	uint8_t buf[MAD_SIZE];
	struct smp s;

	fake_tp_make_resp(fx.ft.sent[i].buf, buf, status);
	assert_int_equal(smp_decode(buf, sizeof(buf), &s), 0);
	memset(s.data, 0, sizeof(s.data));
	if (si)
		smp_sm_info_encode(si, s.data, sizeof(s.data));
	assert_int_equal(smp_encode(&s, buf, sizeof(buf)), 0);
	fake_tp_inject(&fx.ft, buf, sizeof(buf), 0, NULL);
	mad_engine_on_readable(fx.sm.eng);
}

static struct smp_sm_info info(uint64_t guid, uint8_t prio, uint8_t st, uint64_t key, uint32_t ac)
{
	struct smp_sm_info si = { .guid = guid, .sm_key = key, .act_count = ac, .priority = prio,
				  .sm_state = st };

	return si;
}

/* An SMInfo request arriving at us: DR from host port 2 or 3 of S (its
 * ReturnPath: the port it entered S by, then ours), or LID-routed from
 * slid when slid is not 0. */
static size_t deliver(uint8_t method, unsigned mod, const struct smp_sm_info *si, uint8_t via,
		      uint16_t slid)
{
	struct mad_addr from = { .dlid = slid ? slid : LID_PERMISSIVE };
	struct smp s;
	size_t before = fx.ft.nsent;

	memset(&s, 0, sizeof(s));
	s.hdr.base_version = 1;
	s.hdr.class_version = 1;
	s.hdr.method = method;
	s.hdr.tid = 0x1234;
	s.hdr.attr_id = SMP_ATTR_SM_INFO;
	s.hdr.attr_mod = mod;
	if (slid) {
		s.hdr.mgmt_class = MAD_CLASS_SMI;
	} else {
		s.hdr.mgmt_class = MAD_CLASS_SMI_DR;
		s.hdr.hop_cnt = 2;
		s.hdr.hop_ptr = 2;
		s.dr_slid = s.dr_dlid = LID_PERMISSIVE;
		s.initial_path[1] = 1;
		s.initial_path[2] = 1;
		s.return_path[1] = via;
		s.return_path[2] = 1;
	}
	if (si)
		smp_sm_info_encode(si, s.data, sizeof(s.data));
	sm_sminfo_answer(&fx.sm, &s, &from);
	assert_int_equal(fx.ft.nsent, before + 1 + (method == MAD_METHOD_SET &&
						    mod == SM_CTL_HANDOVER &&
						    fx.sm.state == SM_STATE_MASTER));
	return before;   /* our GetResp */
}

/* Scan and elect with M answering as `m_state`: we end STANDBY
 * following M (M master) or MASTER. */
static void scan(uint8_t m_state, uint8_t m_prio)
{
	struct smp_sm_info mi = info(G_M, m_prio, m_state, KEY, 10);

	sm_sminfo_phase(&fx.sm, elected);
	assert_int_equal(fx.ft.nsent, 1);
	assert_int_equal(sent(0).hdr.method, MAD_METHOD_GET);
	assert_int_equal(sent(0).hdr.attr_id, SMP_ATTR_SM_INFO);
	answer(0, &mi, 0);
}

/* Run the loop until the next poll went out; its index. */
static size_t next_poll(void)
{
	size_t n = fx.ft.nsent;

	while (fx.ft.nsent == n)
		assert_int_equal(event_base_loop(fx.sm.base, EVLOOP_ONCE), 0);
	assert_int_equal(sent(n).hdr.method, MAD_METHOD_GET);
	assert_int_equal(sent(n).hdr.attr_id, SMP_ATTR_SM_INFO);
	return n;
}

/* --- the tests --- */

static void test_get_answer(void **state)
{
	struct smp_sm_info a, b;
	size_t i;

	(void)state;
	fx.sm.state = SM_STATE_STANDBY;
	i = deliver(MAD_METHOD_GET, 0, NULL, 2, 0);
	a = sent_info(i);
	assert_int_equal(sent(i).hdr.method, MAD_METHOD_GET_RESP);
	assert_int_equal(sent(i).hdr.status & 0x7fff, 0);
	assert_int_equal(a.guid, G_US);
	assert_int_equal(a.priority, 5);
	assert_int_equal(a.sm_state, SM_STATE_STANDBY);
	assert_int_equal(a.sm_key, KEY);
	i = deliver(MAD_METHOD_GET, 0, NULL, 2, 0);
	b = sent_info(i);
	/* every SMP we send counts, our answers included (IBA 14.4.1) */
	assert_true(b.act_count > a.act_count);
	assert_int_equal(sets_sent(), 0);
}

static void test_elect_and_handover_from_master(void **state)
{
	struct smp_sm_info m = info(G_M, 1, SM_STATE_MASTER, KEY, 10);
	size_t i;

	(void)state;
	scan(SM_STATE_MASTER, 1);
	assert_int_equal(fx.sm.state, SM_STATE_STANDBY);
	assert_int_equal(fx.sm.master_guid, G_M);
	assert_int_equal(fx.standing_by, 1);
	assert_int_equal(fx.lids_phases, 0);
	/* HANDOVER by directed route from M: accepted, ACKNOWLEDGE, master */
	i = deliver(MAD_METHOD_SET, SM_CTL_HANDOVER, &m, 2, 0);
	assert_int_equal(sent(i).hdr.method, MAD_METHOD_GET_RESP);
	assert_int_equal(sent(i).hdr.status & 0x7fff, 0);
	assert_int_equal(fx.sm.state, SM_STATE_MASTER);
	assert_int_equal(fx.sweeps, 1);
	assert_true(fx.sm.takeover);
	assert_int_equal(sent(i + 1).hdr.method, MAD_METHOD_SET);
	assert_int_equal(sent(i + 1).hdr.attr_mod, SM_CTL_ACKNOWLEDGE);
	assert_int_equal(sent_info(i + 1).sm_state, SM_STATE_STANDBY);
}

static void test_rogue_sets_refused(void **state)
{
	struct smp_sm_info m = info(G_M, 1, SM_STATE_MASTER, KEY, 10);
	struct smp_sm_info r = info(G_R, 15, SM_STATE_MASTER, KEY, 10);
	struct smp_sm_info ack = info(G_M, 1, SM_STATE_STANDBY, KEY, 10);
	size_t i;

	(void)state;
	scan(SM_STATE_MASTER, 1);
	i = fx.ft.nsent;
	/* the master's GUID and key, but sent from R: by route and by LID */
	deliver(MAD_METHOD_SET, SM_CTL_HANDOVER, &m, 3, 0);
	deliver(MAD_METHOD_SET, SM_CTL_HANDOVER, &m, 0, 4);
	deliver(MAD_METHOD_SET, SM_CTL_DISABLE, &m, 3, 0);
	deliver(MAD_METHOD_SET, SM_CTL_DISCOVER, &m, 0, 4);
	/* from M, but with another SM_Key */
	m.sm_key = 7;
	deliver(MAD_METHOD_SET, SM_CTL_HANDOVER, &m, 2, 0);
	/* R in its own name: not our master */
	deliver(MAD_METHOD_SET, SM_CTL_HANDOVER, &r, 3, 0);
	/* ACKNOWLEDGE though we handed nothing over */
	deliver(MAD_METHOD_SET, SM_CTL_ACKNOWLEDGE, &ack, 2, 0);
	for (; i < fx.ft.nsent; i++) {
		assert_int_equal(sent(i).hdr.method, MAD_METHOD_GET_RESP);
		assert_int_equal(sent(i).hdr.status & 0x7fff, STATUS_BAD_VALUE);
	}
	assert_int_equal(fx.sm.state, SM_STATE_STANDBY);
	assert_int_equal(fx.sm.master_guid, G_M);
	assert_int_equal(fx.sweeps, 0);
	/* a standby never emits a Set */
	assert_int_equal(sets_sent(), 0);
	/* and the real master's LID-routed HANDOVER from LID 3 is taken */
	m.sm_key = KEY;
	deliver(MAD_METHOD_SET, SM_CTL_HANDOVER, &m, 0, 3);
	assert_int_equal(fx.sm.state, SM_STATE_MASTER);
}

static void set_done(void *arg, int err, const struct smp *resp)
{
	(void)resp;
	*(int *)arg = err;
}

static void test_standby_sends_no_set(void **state)
{
	struct mad_req r;
	struct mad_stats st;
	int err = 0;

	(void)state;
	scan(SM_STATE_MASTER, 1);
	assert_int_equal(fx.sm.state, SM_STATE_STANDBY);
	/* whatever path queues a Set, the engine's gate refuses it */
	sm_port_req(&fx.sm, &fx.sm.fabric->nodes[2]->ports[1], MAD_METHOD_SET, SMP_ATTR_PORT_INFO,
		    1, &r);
	assert_int_equal(mad_engine_submit(fx.sm.eng, &r, set_done, &err), 0);
	assert_int_equal(err, MAD_ERR_REFUSED);
	mad_engine_get_stats(fx.sm.eng, &st);
	assert_int_equal(st.sets_refused, 1);
	assert_false(sm_set_gate(&fx.sm, MAD_CLASS_SMI_DR, SMP_ATTR_LFT));
	assert_false(sm_set_gate(&fx.sm, MAD_CLASS_SMI, SMP_ATTR_PORT_INFO));
	assert_true(sm_set_gate(&fx.sm, MAD_CLASS_SMI_DR, SMP_ATTR_SM_INFO));
	/* nor can an operator reroute or hand over */
	assert_int_equal(sm_handover(&fx.sm, (char[64]){ 0 }, 64), -1);
	for (int k = 0; k < 3; k++) {
		size_t p = next_poll();
		struct smp_sm_info m = info(G_M, 1, SM_STATE_MASTER, KEY, 11 + (uint32_t)k);

		answer(p, &m, 0);
	}
	assert_int_equal(fx.sm.state, SM_STATE_STANDBY);
	assert_int_equal(sets_sent(), 0);
}

static void test_poll_takeover(void **state)
{
	size_t p;

	(void)state;
	scan(SM_STATE_MASTER, 1);
	/* the first failed poll is repeated; the second in a row takes over */
	p = next_poll();
	fake_tp_return_send(&fx.ft, p, 110);
	mad_engine_on_readable(fx.sm.eng);
	assert_int_equal(fx.sweeps, 0);
	p = next_poll();
	fake_tp_return_send(&fx.ft, p, 110);
	mad_engine_on_readable(fx.sm.eng);
	assert_int_equal(fx.sweeps, 1);
	assert_true(fx.sm.takeover);
	assert_true(fx.sm.reread_lfts);
}

static void test_frozen_actcount(void **state)
{
	struct smp_sm_info m = info(G_M, 1, SM_STATE_MASTER, KEY, 42);

	(void)state;
	scan(SM_STATE_MASTER, 1);
	/* answers, but its ActCount never moves: retries + 1 still answers */
	for (int k = 0; k < 4; k++) {
		assert_int_equal(fx.sweeps, 0);
		answer(next_poll(), &m, 0);
	}
	assert_int_equal(fx.sweeps, 1);
	assert_true(sm_peer_find(&fx.sm.peers, G_M)->stuck);
}

/* As master with M a higher STANDBY: HANDOVER after the sweep; we write
 * nothing while it is in flight and step down on its accepting answer. */
static size_t master_hands_over(void)
{
	size_t h;

	scan(SM_STATE_STANDBY, 9);   /* M is higher, but standby: we ... */
	assert_int_equal(fx.sm.state, SM_STATE_STANDBY);
	fx.sm.state = SM_STATE_MASTER;   /* ... say it took us master (a handover) */
	fx.sm.master_guid = 0;
	h = fx.ft.nsent;
	sm_sminfo_after_sweep(&fx.sm);
	assert_int_equal(fx.ft.nsent, h + 1);
	assert_int_equal(sent(h).hdr.method, MAD_METHOD_SET);
	assert_int_equal(sent(h).hdr.attr_mod, SM_CTL_HANDOVER);
	assert_int_equal(sent_info(h).sm_state, SM_STATE_MASTER);
	assert_int_equal(sent(h).initial_path[2], 2);   /* to M */
	assert_int_equal(fx.sm.state, SM_STATE_MASTER);
	assert_true(fx.sm.handing_over);
	assert_false(sm_set_gate(&fx.sm, MAD_CLASS_SMI_DR, SMP_ATTR_LFT));
	return h;
}

static void test_master_hands_over(void **state)
{
	struct smp_sm_info ack = info(G_M, 9, SM_STATE_STANDBY, KEY, 10);
	size_t h;

	(void)state;
	h = master_hands_over();
	answer(h, &ack, 0);
	assert_int_equal(fx.sm.state, SM_STATE_STANDBY);
	assert_int_equal(fx.sm.master_guid, G_M);
	assert_false(fx.sm.handing_over);
	/* the optional ACKNOWLEDGE from M is taken and changes nothing */
	h = deliver(MAD_METHOD_SET, SM_CTL_ACKNOWLEDGE, &ack, 2, 0);
	assert_int_equal(sent(h).hdr.status & 0x7fff, 0);
	assert_int_equal(fx.sm.state, SM_STATE_STANDBY);
	assert_int_equal(sets_sent(), 1);   /* the HANDOVER only */
}

static void test_handover_refused_stays_master(void **state)
{
	struct smp_sm_info m = info(G_M, 9, SM_STATE_STANDBY, KEY, 10);
	size_t h;

	(void)state;
	h = master_hands_over();
	fx.sm.sweep_again = true;   /* a sweep asked for meanwhile waits */
	answer(h, &m, STATUS_BAD_VALUE);
	assert_int_equal(fx.sm.state, SM_STATE_MASTER);
	assert_false(fx.sm.handing_over);
	assert_int_equal(fx.sweeps, 1);   /* ... and runs now */
	assert_true(sm_set_gate(&fx.sm, MAD_CLASS_SMI_DR, SMP_ATTR_LFT));
}

static void test_operator_handover_waits_for_sweep(void **state)
{
	char err[128];
	size_t n;

	(void)state;
	scan(SM_STATE_STANDBY, 1);   /* M lower and standby: we are master */
	assert_int_equal(fx.sm.state, SM_STATE_MASTER);
	assert_int_equal(fx.lids_phases, 1);
	fx.sm.sweeping = true;
	n = fx.ft.nsent;
	assert_int_equal(sm_handover(&fx.sm, err, sizeof(err)), 1);
	assert_int_equal(fx.ft.nsent, n);          /* nothing sent yet */
	assert_true(sm_set_gate(&fx.sm, MAD_CLASS_SMI_DR, SMP_ATTR_LFT));   /* the sweep writes */
	fx.sm.sweeping = false;
	sm_sminfo_after_sweep(&fx.sm);
	assert_int_equal(fx.ft.nsent, n + 1);
	assert_int_equal(sent(n).hdr.attr_mod, SM_CTL_HANDOVER);
	assert_true(fx.sm.handing_over);
	assert_int_equal(sm_handover(&fx.sm, err, sizeof(err)), -1);   /* one at a time */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_elect_and_handover_from_master, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_sets_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_standby_sends_no_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_poll_takeover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frozen_actcount, setup, teardown),
		cmocka_unit_test_setup_teardown(test_master_hands_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handover_refused_stays_master, setup, teardown),
		cmocka_unit_test_setup_teardown(test_operator_handover_waits_for_sweep, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

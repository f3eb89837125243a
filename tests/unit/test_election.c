/*
 * DOC: tests of SM election (fabric/election.c): who is master after a
 * discovery, when a master hands over or yields, the standby's poll
 * verdicts, and which SMInfo Sets may change our state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/election.h"

static const struct sm_self me = { .guid = 0x50, .priority = 5, .sm_key = 1 };

static struct smp_sm_info info(uint64_t guid, uint8_t prio, uint8_t state, uint32_t act)
{
	struct smp_sm_info si = { .guid = guid, .sm_key = 1, .act_count = act, .priority = prio,
				  .sm_state = state };

	return si;
}

static void add(struct sm_peers *ps, uint64_t guid, uint8_t prio, uint8_t state)
{
	struct smp_sm_info si = info(guid, prio, state, 7);

	sm_peer_seen(sm_peer_get(ps, guid), &si, &me, 1);
}

static void test_higher(void **state)
{
	(void)state;
	assert_true(sm_higher(6, 0x99, 5, 0x10));   /* priority first */
	assert_true(sm_higher(5, 0x10, 5, 0x99));   /* then the lower GUID */
	assert_false(sm_higher(5, 0x99, 5, 0x10));
	assert_false(sm_higher(5, 0x10, 5, 0x10));
}

static void test_after_discovery(void **state)
{
	struct sm_peers ps = { 0 };
	const struct sm_peer *m;

	(void)state;
	assert_int_equal(election_after_discovery(&ps, &me, &m), SM_STATE_MASTER);
	add(&ps, 0x90, 2, SM_STATE_DISCOVERING);               /* lower */
	assert_int_equal(election_after_discovery(&ps, &me, &m), SM_STATE_MASTER);
	add(&ps, 0x40, 5, SM_STATE_STANDBY);                   /* same prio, lower GUID */
	assert_int_equal(election_after_discovery(&ps, &me, &m), SM_STATE_STANDBY);
	assert_int_equal(m->guid, 0x40);
	add(&ps, 0x91, 0, SM_STATE_MASTER);                    /* any master wins */
	assert_int_equal(election_after_discovery(&ps, &me, &m), SM_STATE_STANDBY);
	assert_int_equal(m->guid, 0x91);
}

/* SMs of another administration, silent ones and disabled ones do not count. */
static void test_ignored_peers(void **state)
{
	struct sm_peers ps = { 0 };
	struct smp_sm_info si = info(0x11, 15, SM_STATE_MASTER, 1);
	const struct sm_peer *m;

	(void)state;
	si.sm_key = 2;
	sm_peer_seen(sm_peer_get(&ps, 0x11), &si, &me, 1);
	assert_true(ps.v[0].foreign);
	add(&ps, 0x12, 15, SM_STATE_NOT_ACTIVE);
	sm_peer_get(&ps, 0x13)->state = SM_STATE_MASTER;       /* never answered */
	assert_int_equal(election_after_discovery(&ps, &me, &m), SM_STATE_MASTER);
	si.sm_key = 0;                                         /* 0: not told, not another key */
	sm_peer_seen(sm_peer_get(&ps, 0x11), &si, &me, 2);
	assert_false(ps.v[0].foreign);
	assert_int_equal(election_after_discovery(&ps, &me, &m), SM_STATE_STANDBY);
}

/* A master whose ActCount froze does not count until it moves again. */
static void test_stuck_master(void **state)
{
	struct sm_peers ps = { 0 };
	struct smp_sm_info si = info(0x30, 9, SM_STATE_MASTER, 40);
	const struct sm_peer *m;
	struct sm_peer *p = sm_peer_get(&ps, 0x30);

	(void)state;
	sm_peer_seen(p, &si, &me, 1);
	p->stuck = true;
	p->stuck_at = 40;
	sm_peer_seen(p, &si, &me, 2);
	assert_int_equal(election_after_discovery(&ps, &me, &m), SM_STATE_MASTER);
	si.act_count = 41;
	sm_peer_seen(p, &si, &me, 3);
	assert_false(p->stuck);
	assert_int_equal(election_after_discovery(&ps, &me, &m), SM_STATE_STANDBY);
}

static void test_as_master(void **state)
{
	struct sm_peers ps = { 0 };
	const struct sm_peer *to, *yield;

	(void)state;
	add(&ps, 0x90, 1, SM_STATE_STANDBY);
	assert_null(election_as_master(&ps, &me, &yield));
	assert_null(yield);
	add(&ps, 0x91, 9, SM_STATE_STANDBY);
	add(&ps, 0x92, 7, SM_STATE_STANDBY);
	to = election_as_master(&ps, &me, &yield);
	assert_non_null(to);
	assert_int_equal(to->guid, 0x91);
	assert_int_equal(election_best_standby(&ps)->guid, 0x91);
	add(&ps, 0x93, 2, SM_STATE_MASTER);                    /* a lower master: ours to keep */
	assert_non_null(election_as_master(&ps, &me, &yield));
	assert_null(yield);
	add(&ps, 0x94, 12, SM_STATE_MASTER);                   /* a higher master: yield */
	assert_null(election_as_master(&ps, &me, &yield));
	assert_int_equal(yield->guid, 0x94);
}

static void test_poll(void **state)
{
	struct sm_poll p = { .master = 0x10 };
	struct smp_sm_info si = info(0x10, 9, SM_STATE_MASTER, 100);

	(void)state;
	assert_int_equal(sm_poll_result(&p, &si, 2), POLL_OK);
	assert_int_equal(sm_poll_result(&p, NULL, 2), POLL_AGAIN);
	si.act_count = 101;
	assert_int_equal(sm_poll_result(&p, &si, 2), POLL_OK);   /* an answer resets */
	assert_int_equal(sm_poll_result(&p, NULL, 2), POLL_AGAIN);
	assert_int_equal(sm_poll_result(&p, NULL, 2), POLL_TAKEOVER);
	/* answers whose ActCount stands still: retries + 1 of them */
	memset(&p, 0, sizeof(p));
	assert_int_equal(sm_poll_result(&p, &si, 2), POLL_OK);
	assert_int_equal(sm_poll_result(&p, &si, 2), POLL_OK);
	assert_int_equal(sm_poll_result(&p, &si, 2), POLL_OK);
	assert_int_equal(sm_poll_result(&p, &si, 2), POLL_TAKEOVER);
	memset(&p, 0, sizeof(p));
	si.sm_state = SM_STATE_STANDBY;
	assert_int_equal(sm_poll_result(&p, &si, 2), POLL_REELECT);
}

static void test_ctl_verdicts(void **state)
{
	struct smp_sm_info from_master = info(0x77, 0, SM_STATE_MASTER, 1);
	struct smp_sm_info other = info(0x78, 0, SM_STATE_MASTER, 1);
	struct smp_sm_info standby = info(0x77, 9, SM_STATE_STANDBY, 1);

	(void)state;
	assert_int_equal(sm_ctl_verdict(SM_CTL_HANDOVER, &from_master, SM_STATE_STANDBY, 0x77, 0, from_master.guid, &me),
			 SM_STATE_MASTER);
	/* not our master, not a master, or we are no standby: refused */
	assert_int_equal(sm_ctl_verdict(SM_CTL_HANDOVER, &other, SM_STATE_STANDBY, 0x77, 0, other.guid, &me), -1);
	assert_int_equal(sm_ctl_verdict(SM_CTL_HANDOVER, &standby, SM_STATE_STANDBY, 0x77, 0, standby.guid, &me), -1);
	assert_int_equal(sm_ctl_verdict(SM_CTL_HANDOVER, &from_master, SM_STATE_MASTER, 0x77, 0, from_master.guid, &me), -1);
	assert_int_equal(sm_ctl_verdict(SM_CTL_DISABLE, &other, SM_STATE_MASTER, 0, 0, other.guid, &me), -1);
	assert_int_equal(sm_ctl_verdict(SM_CTL_DISABLE, &from_master, SM_STATE_STANDBY, 0x77, 0, from_master.guid, &me),
			 SM_STATE_NOT_ACTIVE);
	assert_int_equal(sm_ctl_verdict(SM_CTL_STANDBY, &other, SM_STATE_NOT_ACTIVE, 0x77, 0, other.guid, &me),
			 SM_STATE_STANDBY);
	assert_int_equal(sm_ctl_verdict(SM_CTL_DISCOVER, &from_master, SM_STATE_STANDBY, 0x77, 0, from_master.guid, &me),
			 SM_STATE_DISCOVERING);
	/* ACKNOWLEDGE only from the SM we handed over to */
	assert_int_equal(sm_ctl_verdict(SM_CTL_ACKNOWLEDGE, &standby, SM_STATE_STANDBY, 0, 0x77, standby.guid, &me),
			 SM_STATE_STANDBY);
	assert_int_equal(sm_ctl_verdict(SM_CTL_ACKNOWLEDGE, &standby, SM_STATE_STANDBY, 0, 0x99, standby.guid, &me), -1);
	/* another SM_Key, or an unknown modifier */
	from_master.sm_key = 3;
	assert_int_equal(sm_ctl_verdict(SM_CTL_HANDOVER, &from_master, SM_STATE_STANDBY, 0x77, 0, from_master.guid, &me), -1);
	from_master.sm_key = 1;
	assert_int_equal(sm_ctl_verdict(9, &from_master, SM_STATE_STANDBY, 0x77, 0, from_master.guid, &me), -1);
	/* the master's GUID and key in a Set some other port sent (a forgery),
	 * or from a port we cannot place: refused, whatever the modifier */
	for (unsigned mod = SM_CTL_HANDOVER; mod <= SM_CTL_DISCOVER; mod++) {
		const struct smp_sm_info *si = mod == SM_CTL_ACKNOWLEDGE ? &standby : &from_master;
		enum sm_state mine = mod == SM_CTL_STANDBY ? SM_STATE_NOT_ACTIVE : SM_STATE_STANDBY;

		assert_true(sm_ctl_verdict(mod, si, mine, 0x77, 0x77, 0x77, &me) >= 0);
		assert_int_equal(sm_ctl_verdict(mod, si, mine, 0x77, 0x77, 0x78, &me), -1);
		assert_int_equal(sm_ctl_verdict(mod, si, mine, 0x77, 0x77, 0, &me), -1);
	}
}

static void test_peer_table_full(void **state)
{
	struct sm_peers ps = { 0 };

	(void)state;
	for (uint64_t g = 1; g <= SM_MAX_PEERS; g++)
		assert_non_null(sm_peer_get(&ps, g));
	assert_null(sm_peer_get(&ps, 0x1000));
	assert_non_null(sm_peer_get(&ps, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_higher),
		cmocka_unit_test(test_after_discovery),
		cmocka_unit_test(test_ignored_peers),
		cmocka_unit_test(test_stuck_master),
		cmocka_unit_test(test_as_master),
		cmocka_unit_test(test_poll),
		cmocka_unit_test(test_ctl_verdicts),
		cmocka_unit_test(test_peer_table_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * DOC: SM election: which SM is master, the other SMs we know, and the
 * state machine's decisions (IBA 14.4).
 *
 * Pure: no I/O, no clock of its own. sminfo.c feeds it what the SMInfo
 * attributes of the other SMs said and carries out its verdicts.
 *
 *   - "Higher" is the greater priority, then the lower port GUID.
 *   - After a discovery (DISCOVERING): STANDBY if any other SM is MASTER,
 *     or another SM that is DISCOVERING or STANDBY is higher than us;
 *     MASTER otherwise.
 *   - As MASTER: a higher SM in STANDBY gets the mastership handed over;
 *     a higher MASTER makes us STANDBY; a lower MASTER is left to step
 *     down (it sees us).
 *   - SMs whose non-zero SM_Key differs from our non-zero one are ignored
 *     (logged once), as OpenSM does: they are another administration's.
 *   - A STANDBY takes over when the master stops answering for poll_retries
 *     polls in a row, or answers with an ActCount that does not move for
 *     poll_retries + 1 polls (an SM counts every SMP it sends, its
 *     answers to our polls included: a live master always moves), or
 *     answers in another state than MASTER.
 */
#ifndef IBSM_FABRIC_ELECTION_H
#define IBSM_FABRIC_ELECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"

enum sm_state {
	SM_STATE_NOT_ACTIVE = 0,
	SM_STATE_DISCOVERING = 1,
	SM_STATE_STANDBY = 2,
	SM_STATE_MASTER = 3,
};

/* SMInfo Set AttributeModifiers (IBA 14.4.2). */
enum sm_ctl {
	SM_CTL_HANDOVER = 1,
	SM_CTL_ACKNOWLEDGE = 2,
	SM_CTL_DISABLE = 3,
	SM_CTL_STANDBY = 4,
	SM_CTL_DISCOVER = 5,
};

#define SM_MAX_PEERS 64

/* Another SM, as its SMInfo last said. */
struct sm_peer {
	uint64_t guid;            /* its port GUID (SMInfo GUID) */
	uint64_t node_guid;       /* the node it runs on */
	uint8_t port;             /* and the port */
	uint16_t lid;
	uint8_t priority;
	uint8_t state;            /* enum sm_state */
	uint32_t act_count;
	uint64_t sm_key;
	uint64_t last_seen_ms;    /* when it last answered, 0 never */
	bool answered;            /* its last query was answered */
	bool foreign;             /* another SM_Key: ignored */
	bool seen;                /* found in the current scan */
	bool stuck;               /* a master whose ActCount froze: ignored ... */
	uint32_t stuck_at;        /* ... until it moves from this */
};

struct sm_peers {
	struct sm_peer v[SM_MAX_PEERS];
	size_t n;
};

struct sm_self {
	uint64_t guid;
	uint8_t priority;
	uint64_t sm_key;
};

/* a is higher than b: greater priority, then lower GUID. */
bool sm_higher(uint8_t pa, uint64_t ga, uint8_t pb, uint64_t gb);
/* The peer with this GUID, or a new slot for it (NULL when full). */
struct sm_peer *sm_peer_get(struct sm_peers *ps, uint64_t guid);
struct sm_peer *sm_peer_find(struct sm_peers *ps, uint64_t guid);
/* Records an answer (SMInfo, decoded) at now; marks a key mismatch, and
 * clears stuck once the ActCount moved. */
void sm_peer_seen(struct sm_peer *p, const struct smp_sm_info *si, const struct sm_self *self,
		  uint64_t now);

/* After a discovery: MASTER or STANDBY; *master is the SM to follow as
 * STANDBY (a MASTER if there is one, else the highest). */
enum sm_state election_after_discovery(const struct sm_peers *ps, const struct sm_self *self,
				       const struct sm_peer **master);
/* As MASTER: the SM to hand over to (the highest STANDBY above us), or
 * NULL. Sets *yield when a higher MASTER exists (then go STANDBY). */
const struct sm_peer *election_as_master(const struct sm_peers *ps, const struct sm_self *self,
					 const struct sm_peer **yield);
/* The best STANDBY whatever its priority (an operator's handover), or NULL. */
const struct sm_peer *election_best_standby(const struct sm_peers *ps);

/* A STANDBY's view of its polls. */
struct sm_poll {
	uint64_t master;          /* GUID of the SM we follow */
	unsigned failed;          /* polls in a row without an answer */
	unsigned still;           /* answers in a row with the same ActCount */
	uint32_t last_count;
	bool have_count;
};

enum poll_verdict {
	POLL_OK,
	POLL_AGAIN,               /* no answer: poll again soon */
	POLL_TAKEOVER,            /* the master is gone or stuck */
	POLL_REELECT,             /* it answers, but is no longer master */
};

/* One poll's outcome: si is NULL when it was not answered. */
enum poll_verdict sm_poll_result(struct sm_poll *p, const struct smp_sm_info *si,
				 unsigned poll_retries);

/* May a SMInfo Set with this modifier, from an SM whose payload is si,
 * change our state (we are in state mine, following master, having handed
 * over to handed_to)? sender is the port GUID the Set came from, as our
 * fabric model places its source LID or directed route (0: unknown); it
 * must be the SM the payload names. Returns the new state, or -1 when the
 * Set is refused (not part of a handover, wrong state, wrong SM_Key, sent
 * by another port than the SM it names). */
int sm_ctl_verdict(unsigned mod, const struct smp_sm_info *si, enum sm_state mine,
		   uint64_t master, uint64_t handed_to, uint64_t sender, const struct sm_self *self);

const char *sm_state_name(int state);

#endif

/*
 * DOC: sm_agent, a test tool that plays another SM on an ibsim fabric: it
 * only answers SMInfo, with the state, priority and key it is given, and an
 * ActCount that moves with every answer or, with -f, never does (a master
 * that answers but no longer works).
 *
 *   sm_agent [-s STATE] [-p PRIO] [-k KEY] [-f] [-t SECONDS]
 *     -s STATE  0 not active, 1 discovering, 2 standby, 3 master (default 3)
 *     -p PRIO   SMInfo priority (default 0)
 *     -k KEY    SM_Key (default 1, OpenSM's and ibsmd's default)
 *     -f        freeze ActCount
 *     -t SEC    exit after SEC seconds (default 300)
 * It opens the issm device at SIM_HOST (under the umad2sim preload), so the
 * simulator gives it the SMInfo MADs sent to that node, and prints one
 * line per SMInfo Set it receives: "set MOD from GUID state S".
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/engine.h"
#include "mad/smp.h"

struct agent {
	struct mad_engine *e;
	struct smp_sm_info me;
	int freeze;
};

static void answer(void *arg, const uint8_t *mad, size_t len, const struct mad_addr *from)
{
	struct agent *a = arg;
	struct smp s;
	struct smp_sm_info in;
	uint8_t buf[MAD_SIZE];

	if (smp_decode(mad, len, &s) < 0 || s.hdr.attr_id != SMP_ATTR_SM_INFO)
		return;
	if (s.hdr.method == MAD_METHOD_SET && smp_sm_info_decode(s.data, sizeof(s.data), &in) == 0) {
		printf("set %u from %016" PRIx64 " state %u\n", s.hdr.attr_mod, in.guid, in.sm_state);
		fflush(stdout);
	} else if (s.hdr.method != MAD_METHOD_GET) {
		return;
	}
	if (!a->freeze)
		a->me.act_count++;
	s.hdr.method = MAD_METHOD_GET_RESP;
	s.hdr.status = 0;
	if (s.hdr.mgmt_class == MAD_CLASS_SMI_DR)
		s.hdr.d_bit = 1;
	memset(s.data, 0, sizeof(s.data));
	smp_sm_info_encode(&a->me, s.data, sizeof(s.data));
	if (smp_encode(&s, buf, sizeof(buf)) == 0)
		mad_engine_send_raw(a->e, buf, sizeof(buf), from);
}

int main(int argc, char **argv)
{
	struct agent a = { 0 };
	struct mad_engine_opts o;
	struct mad_transport tp;
	struct mad_port_info info;
	char err[256];
	int ch, secs = 300;

	a.me.sm_state = 3;
	a.me.sm_key = 1;
	a.me.act_count = 1;
	while ((ch = getopt(argc, argv, "s:p:k:ft:")) != -1) {
		switch (ch) {
		case 's': a.me.sm_state = (uint8_t)atoi(optarg); break;
		case 'p': a.me.priority = (uint8_t)atoi(optarg); break;
		case 'k': a.me.sm_key = strtoull(optarg, NULL, 0); break;
		case 'f': a.freeze = 1; break;
		case 't': secs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: sm_agent [-s STATE] [-p PRIO] [-k KEY] [-f] [-t SEC]\n");
			return 2;
		}
	}
	if (mad_umad_open(NULL, 0, 0, 1, &tp, &info, err, sizeof(err)) < 0) {
		fprintf(stderr, "sm_agent: %s\n", err);
		return 1;
	}
	a.me.guid = info.port_guid;
	mad_engine_opts_default(&o);
	o.unsolicited = answer;
	o.unsolicited_arg = &a;
	a.e = mad_engine_new(&tp, &o);
	struct pollfd p = { .fd = tp.fd(tp.ctx), .events = POLLIN };
	time_t end = time(NULL) + secs;

	while (time(NULL) < end) {
		if (poll(&p, 1, 20) > 0)
			mad_engine_on_readable(a.e);
		mad_engine_on_timer(a.e);
	}
	mad_engine_free(a.e);
	tp.close(tp.ctx);
	return 0;
}

/*
 * DOC: sa-trivial, the fastest SA there can be: the ceiling of the SA
 * benchmark.
 *
 * Attached at the SM's node in place of the SM (ibsim hands requests to
 * QP1 to the client that opened issm there), it answers every SA request
 * with a GetResp carrying one fixed PathRecord, without looking at the
 * request beyond its header. Whatever rate the load generators get from
 * it is what the simulator, umad2sim and the shared CPU allow; an SA can
 * only come close to it.
 *
 *   sa-trivial [-d SECONDS]
 * Prints "answered N" at the end.
 */
#include "config.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mad/engine.h"
#include "mad/sa.h"

/* A plausible PathRecord: MTU 2048, 10 Gb/s, reversible, default P_Key. */
static const uint8_t record[64] = {
	[49] = 0x80, [50] = 0xFF, [51] = 0xFF, [54] = 0x84, [55] = 0x83, [56] = 0x92,
};

int main(int argc, char **argv)
{
	struct mad_transport tp;
	struct mad_port_info pi;
	struct mad_umad_opts o;
	uint8_t buf[MAD_RECV_MAX];
	unsigned long long answered = 0;
	unsigned secs = 60;
	time_t end;
	char err[256];
	int ch;

	while ((ch = getopt(argc, argv, "d:")) != -1)
		if (ch == 'd')
			secs = (unsigned)atoi(optarg);
	mad_umad_opts_default(&o);
	o.want_issm = 1;
	if (mad_umad_open_opts(NULL, 0, 0, &o, &tp, &pi, err, sizeof(err)) < 0) {
		fprintf(stderr, "sa-trivial: %s\n", err);
		return 1;
	}
	end = time(NULL) + secs;
	while (time(NULL) < end) {
		struct pollfd p = { .fd = tp.fd(tp.ctx), .events = POLLIN };
		struct mad_addr from, to;
		int status, n;

		poll(&p, 1, 100);
		while ((n = tp.recv(tp.ctx, buf, sizeof(buf), &status, &from)) > 0) {
			if (status || n < SA_HDR_SIZE || buf[1] != MAD_CLASS_SA || (buf[3] & 0x80))
				continue;
			buf[3] = SA_METHOD_GET_RESP;
			buf[4] = buf[5] = 0;                 /* status */
			memset(buf + 36, 0, 8);              /* SM_Key */
			buf[44] = 0;
			buf[45] = 8;                         /* AttributeOffset */
			memcpy(buf + SA_HDR_SIZE, record, sizeof(record));
			mad_addr_reply(&from, &to);
			if (tp.send(tp.ctx, buf, MAD_SIZE, &to) == 0)
				answered++;
		}
	}
	printf("answered %llu\n", answered);
	tp.close(tp.ctx);
	return 0;
}

/*
 * DOC: ibsmd's entry point: options, configuration, the event loop.
 *
 * One thread, one libevent event_base: the umad fd, the MAD engine's
 * deadline timer, the periodic sweep timer and the signals are all events
 * on it. The engine has no timer of its own; after every event we re-arm
 * one timer at the engine's next deadline.
 *
 * Under ibsim's umad2sim preload the umad "fd" is a fake number (>= 1024)
 * that epoll rejects, and umad2sim's poll() wrapper only ever waits on that
 * one fake fd, ignoring any other fd in the set. So when the fd is not a
 * real descriptor we pump instead: a timer that drains the engine and
 * re-arms, letting libevent serve every other event between two pumps
 * (see on_pump). On hardware the fd is real and sits in epoll like any
 * other.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <event2/event.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "sa/host.h"
#include "sm/activate.h"
#include "sm/ar.h"
#include "lib/atomicfile.h"
#include "ctl/ctl.h"
#include "daemon/pmhost.h"
#include "lib/log.h"
#include "sm/bringup.h"
#include "sm/isolate.h"
#include "sm/lidmgr.h"
#include "sm/phase.h"
#include "sm/rereg.h"
#include "sm/routejob.h"
#include "sm/sm.h"
#include "sm/sminfo.h"
#include "sm/snap_build.h"
#include "sm/sweep.h"
#include "sm/tablephases.h"
#include "lib/worker.h"

#define DEFAULT_CONF "/etc/ibsmd/ibsmd.conf"
#define PUMP_WAIT_MS 1
#define PUMP_BUSY_MS 5

struct cli {
	const char *conf_path;
	bool conf_explicit;
	bool check_config, dump_config;
	const char *dump_ar;
	int debug;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ibsmd [options]\n"
		"  -c, --config FILE        configuration file (default " DEFAULT_CONF ")\n"
		"  -o, --option KEY=VALUE   override one configuration option (repeatable)\n"
		"      --ca NAME            shortcut for -o ca=NAME\n"
		"      --port N             shortcut for -o port=N\n"
		"      --port-guid GUID     shortcut for -o port_guid=GUID\n"
		"      --state-dir DIR      shortcut for -o state_dir=DIR\n"
		"      --once               sweep once, bring the subnet up, print a summary, exit\n"
		"      --discover-only      with --once: stop after discovery\n"
		"      --dump-topology FILE write the discovered fabric (ibnetdiscover format)\n"
		"      --dump-lfts FILE     write the computed switch LFTs (ibroute format)\n"
		"      --dump-ar FILE       write the switches' adaptive-routing tables\n"
		"      --fresh-state        ignore the LID state file and start a new one\n"
		"      --check-config       validate the configuration and exit\n"
		"      --dump-config        print the effective configuration and exit\n"
		"  -d, --debug              log at debug level\n"
		"  -h, --help               this text\n"
		"  -V, --version            print the version\n");
}

enum {
	OPT_CA = 256, OPT_PORT, OPT_PORT_GUID, OPT_STATE_DIR, OPT_ONCE, OPT_DISCOVER_ONLY,
	OPT_DUMP_TOPO, OPT_DUMP_LFTS, OPT_DUMP_AR, OPT_FRESH, OPT_CHECK, OPT_DUMP_CONF,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "option", required_argument, NULL, 'o' },
	{ "ca", required_argument, NULL, OPT_CA },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "port-guid", required_argument, NULL, OPT_PORT_GUID },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "discover-only", no_argument, NULL, OPT_DISCOVER_ONLY },
	{ "dump-topology", required_argument, NULL, OPT_DUMP_TOPO },
	{ "dump-lfts", required_argument, NULL, OPT_DUMP_LFTS },
	{ "dump-ar", required_argument, NULL, OPT_DUMP_AR },
	{ "fresh-state", no_argument, NULL, OPT_FRESH },
	{ "check-config", no_argument, NULL, OPT_CHECK },
	{ "dump-config", no_argument, NULL, OPT_DUMP_CONF },
	{ "debug", no_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* -o overrides are applied after the file is read, so keep them. */
struct override {
	const char *key;
	char *value;
};

static int apply_override(struct sm_conf *c, const char *key, const char *value)
{
	char err[256];

	if (conf_set(c, key, value, err, sizeof(err)) < 0) {
		fprintf(stderr, "ibsmd: %s\n", err);
		return -1;
	}
	return 0;
}

static int split_override(char *kv, struct override *o)
{
	char *eq = strchr(kv, '=');

	if (!eq) {
		fprintf(stderr, "ibsmd: -o needs KEY=VALUE, got \"%s\"\n", kv);
		return -1;
	}
	*eq = '\0';
	o->key = kv;
	o->value = eq + 1;
	return 0;
}

static int parse_args(int argc, char **argv, struct cli *cli, struct sm_run_opts *run,
		      struct override *ov, size_t *nov)
{
	static const char *const shortcut[] = {
		[OPT_CA - OPT_CA] = "ca", [OPT_PORT - OPT_CA] = "port",
		[OPT_PORT_GUID - OPT_CA] = "port_guid", [OPT_STATE_DIR - OPT_CA] = "state_dir",
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "c:o:dhV", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'c': cli->conf_path = optarg; cli->conf_explicit = true; break;
		case 'o':
			if (split_override(optarg, &ov[*nov]) < 0)
				return -1;
			(*nov)++;
			break;
		case OPT_CA: case OPT_PORT: case OPT_PORT_GUID: case OPT_STATE_DIR:
			ov[*nov].key = shortcut[ch - OPT_CA];
			ov[(*nov)++].value = optarg;
			break;
		case OPT_ONCE: run->once = true; break;
		case OPT_DISCOVER_ONLY: run->discover_only = true; break;
		case OPT_DUMP_TOPO: run->dump_topology = optarg; break;
		case OPT_DUMP_LFTS: run->dump_lfts = optarg; break;
		case OPT_DUMP_AR: cli->dump_ar = optarg; break;
		case OPT_FRESH: run->fresh_state = true; break;
		case OPT_CHECK: cli->check_config = true; break;
		case OPT_DUMP_CONF: cli->dump_config = true; break;
		case 'd': cli->debug = 1; break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("ibsmd %s\n", PACKAGE_VERSION); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ibsmd: unexpected argument \"%s\"\n", argv[optind]);
		return -1;
	}
	if (run->discover_only && !run->once) {
		fprintf(stderr, "ibsmd: --discover-only needs --once\n");
		return -1;
	}
	return 0;
}

static int load_config(struct sm_conf *c, const struct cli *cli, const struct override *ov, size_t nov)
{
	struct conf_errors errs;
	int n = 0;

	conf_errors_init(&errs);
	if (cli->conf_explicit || access(cli->conf_path, F_OK) == 0)
		n = conf_load_file(c, cli->conf_path, &errs);
	else
		conf_defaults(c);
	if (n > 0) {
		conf_errors_print(&errs, stderr);
		conf_errors_free(&errs);
		return -1;
	}
	conf_errors_free(&errs);
	for (size_t i = 0; i < nov; i++)
		if (apply_override(c, ov[i].key, ov[i].value) < 0)
			return -1;
	return 0;
}

static void after_event(struct sm *sm)
{
	sm_arm_engine_timer(sm);
}

static void on_umad(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	mad_engine_on_readable(sm->eng);
	after_event(sm);
}

/* With SMPs outstanding, keep draining for up to PUMP_BUSY_MS, waiting for
 * answers inside umad2sim's poll (it wakes on arrival): a flood of control
 * clients, served between two pumps, then slows a sweep by a few per cent.
 * A control request that comes meanwhile waits for the end of the slice:
 * at 20 ms an admin's status took up to 21 ms whenever a sweep ran (p90
 * 11.8 ms in CI's ASan build under the control socket flood); at 5 ms it
 * takes at most 6-10 ms, and the extra turns of the loop cost the
 * 3456-host bring-up nothing measurable. When idle, only look, and let
 * libevent sleep up to PUMP_WAIT_MS, so a control request is answered at
 * once. A worker's result (the routes the
 * bring-up waits for), or a loop cut into turns (sm_phase_steps), sends
 * us back to libevent at once too. */
static void on_pump(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;
	struct pollfd p = { .fd = sm->tp.fd(sm->tp.ctx), .events = POLLIN };
	static const struct timeval now = { 0, 0 }, idle = { 0, PUMP_WAIT_MS * 1000 };
	uint64_t until = clock_ms() + PUMP_BUSY_MS;

	/* SA queries come in streams: right after one, wait for the next in
	 * umad2sim's poll too, or each would wait out PUMP_WAIT_MS; but go
	 * back to libevent after each wait, or a sweep's other events (the
	 * routing worker's result) would wait for the stream to end */
	do {
		bool busy = !mad_engine_idle(sm->eng) || sa_host_busy(sm);

		if (poll(&p, 1, busy ? PUMP_WAIT_MS : 0) > 0)
			mad_engine_on_readable(sm->eng);
		mad_engine_on_timer(sm->eng);
		pm_host_due(clock_ms());
	} while (!mad_engine_idle(sm->eng) && clock_ms() < until && !worker_results_waiting() &&
		 !sm->steps);
	evtimer_add(sm->ev_umad, mad_engine_idle(sm->eng) && !sa_host_busy(sm) ? &idle : &now);
}

static bool fd_is_real(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

static void on_light_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	sm_light_sweep(sm);
	after_event(sm);
}

static void on_sweep_timer(evutil_socket_t fd, short what, void *arg)
{
	struct sm *sm = arg;

	if (!sm_is_master(sm))
		return;
	sm_sweep_request(sm);
	after_event(sm);
}

/* How often the counts of log lines the rate limits left out are written. */
#define LOG_FLUSH_S 5

static void on_log_timer(evutil_socket_t fd, short what, void *arg)
{
	log_flush_suppressed();
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct sm *sm = arg;

	if (sig == SIGHUP) {
		/* control socket: reload (ctl/ctl_reload.c), then sweep as before */
		log_notice("SIGHUP: reloading the configuration and sweeping");
		ctl_reload_signal(sm);
		sm_sweep_request(sm);
		after_event(sm);
		return;
	}
	log_notice("signal %d: shutting down", (int)sig);
	sm->stopping = true;
	event_base_loopexit(sm->base, NULL);
}

/* Under ibsim's umad2sim preload a missing simulator makes libibumad block
 * for ever inside the preload. The simulator listens on the abstract unix
 * socket "<IBSIM_SOCKNAME>:ctl"; if nothing is bound there, say so and stop
 * before touching umad. */
static int check_simulator(void)
{
	const char *pre = getenv("LD_PRELOAD"), *name = getenv("IBSIM_SOCKNAME");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc;

	if (!pre || !strstr(pre, "umad2sim"))
		return 0;
	if (!name || !*name)
		name = "sim";
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "%s:ctl", name);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	rc = connect(fd, (struct sockaddr *)&sa,
		     /* ibsim binds the name with its terminating NUL */
		     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 2 + strlen(sa.sun_path + 1)));
	close(fd);
	if (rc == 0)
		return 0;
	fprintf(stderr, "ibsmd: no ibsim simulator named '%s' is running (IBSIM_SOCKNAME)\n", name);
	return -1;
}

static int open_port(struct sm *sm)
{
	char err[256];
	const struct sm_conf *c = &sm->conf;

	if (mad_umad_open(c->ca[0] ? c->ca : NULL, (int)c->port, c->port_guid, 1, &sm->tp,
			  &sm->port, err, sizeof(err)) < 0) {
		fprintf(stderr, "ibsmd: %s\n", err);
		return -1;
	}
	log_info("using %s port %d (GUID %016llx)", sm->port.ca_name, sm->port.port_num,
		 (unsigned long long)sm->port.port_guid);
	return 0;
}

static void events_setup(struct sm *sm)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct timeval iv = { (time_t)sm->conf.sweep_interval, 0 };

	sm->base = event_base_new();
	if (!sm->base)
		fatalx("cannot create the event loop");
	static const struct timeval now = { 0, 0 };
	int fd = sm->tp.fd(sm->tp.ctx);

	sm_engine_timer_new(sm);
	if (fd_is_real(fd)) {
		sm->ev_umad = event_new(sm->base, fd, EV_READ | EV_PERSIST, on_umad, sm);
		event_add(sm->ev_umad, NULL);
	} else {
		log_info("umad fd %d is not pollable (simulator): pumping", fd);
		sm->ev_umad = evtimer_new(sm->base, on_pump, sm);
		evtimer_add(sm->ev_umad, &now);
	}
	for (int i = 0; i < 3; i++) {
		sm->ev_sig[i] = evsignal_new(sm->base, sigs[i], on_signal, sm);
		event_add(sm->ev_sig[i], NULL);
	}
	if (!sm->run.once && sm->conf.light_sweep_interval) {
		struct timeval lv = { (time_t)sm->conf.light_sweep_interval, 0 };

		sm->ev_light = event_new(sm->base, -1, EV_PERSIST, on_light_timer, sm);
		event_add(sm->ev_light, &lv);
	}
	if (!sm->run.once && sm->conf.sweep_interval) {
		sm->ev_sweep = event_new(sm->base, -1, EV_PERSIST, on_sweep_timer, sm);
		event_add(sm->ev_sweep, &iv);
	}
	sm->ev_log = event_new(sm->base, -1, EV_PERSIST, on_log_timer, sm);
	event_add(sm->ev_log, &(struct timeval){ LOG_FLUSH_S, 0 });
}

/* How long a stop waits for answers to what is on the wire. */
#define STOP_DRAIN_MS 100

/* Before anything is torn down: nothing new goes out, and what is on the
 * wire is answered, or times out, or STOP_DRAIN_MS pass, before the port
 * closes (mad_engine_quiesce says why). Completions run as usual; what
 * they queue is cancelled with the rest by mad_engine_free. */
static void drain(struct sm *sm)
{
	struct pollfd p = { .fd = sm->tp.fd(sm->tp.ctx), .events = POLLIN };
	uint64_t t0 = clock_ms(), until = t0 + STOP_DRAIN_MS;
	struct mad_stats st;

	mad_engine_quiesce(sm->eng);
	if (!mad_engine_awaiting(sm->eng))
		return;
	mad_engine_get_stats(sm->eng, &st);
	while (mad_engine_awaiting(sm->eng) && clock_ms() < until) {
		if (poll(&p, 1, 1) > 0)
			mad_engine_on_readable(sm->eng);
		mad_engine_on_timer(sm->eng);
	}
	log_info("stopping: %llu MADs were on the wire; %s after %llu ms",
		 (unsigned long long)(st.outstanding + st.gmp_outstanding),
		 mad_engine_awaiting(sm->eng) ? "closing with some still out" : "all back",
		 (unsigned long long)(clock_ms() - t0));
}

static void teardown(struct sm *sm)
{
	if (sm->eng)
		drain(sm);
	route_job_abandon(sm);
	sm_lids_abandon(sm);
	sm_phase_steps_abandon(sm);
	sm_sminfo_fini(sm);
	linkset_free(&sm->pending_links);
	ctl_fini(sm);   /* control socket */
	if (sm->disc)
		discover_abort(sm->disc);
	pm_host_stop(sm);
	if (sm->eng)
		mad_engine_free(sm->eng);
	pm_host_detach(sm);   /* after the engine: it answers the PM's queries */
	sa_host_detach(sm);   /* after the engine: it completes the SA's SMPs */
	sm_tables_free(sm);   /* after the engine: its cancellations use it */
	sm_act_free(sm);      /* the same */
	sm_bringup_free(sm);
	for (int i = 0; i < SM_POOLS; i++)
		pool_drain(&sm->ctx_pool[i]);
	if (sm->tp.close)
		sm->tp.close(sm->tp.ctx);
	for (int i = 0; i < 3; i++)
		if (sm->ev_sig[i])
			event_free(sm->ev_sig[i]);
	if (sm->ev_umad)
		event_free(sm->ev_umad);
	if (sm->ev_timer)
		event_free(sm->ev_timer);
	if (sm->ev_sweep)
		event_free(sm->ev_sweep);
	if (sm->ev_light)
		event_free(sm->ev_light);
	if (sm->ev_log)
		event_free(sm->ev_log);
	log_flush_suppressed();
	if (sm->ev_retry)
		event_free(sm->ev_retry);
	sm_light_free(sm);
	sm_isolate_free(sm);
	sm_rereg_free(sm);
	if (sm->base)
		event_base_free(sm->base);
	fabric_free(sm->fabric);
	sm_snap_fini(sm);
	sm_routes_drop(sm);
	lid_db_free(&sm->lids);
	linkset_free(&sm->routed_links);
	conf_free(&sm->conf);
}

/* The state directory and the control socket's directory, created when
 * missing (a machine where neither `make install` nor the unit made them):
 * before the first SMP, so a daemon that could not keep its LIDs or be
 * controlled never touches the fabric. */
static int prepare_dirs(const struct sm *sm)
{
	char err[512], *sockdir, *slash;
	int rc = 0;

	if (!sm->run.discover_only && make_dirs(sm->conf.state_dir, 0750, err, sizeof(err)) < 0)
		rc = -1;
	if (rc == 0 && !sm->run.once) {
		sockdir = xstrdup(sm->conf.socket_path);
		slash = strrchr(sockdir, '/');
		if (slash && slash != sockdir) {
			*slash = '\0';
			rc = make_dirs(sockdir, 0755, err, sizeof(err));
		}
		free(sockdir);
	}
	if (rc < 0)
		fprintf(stderr, "ibsmd: %s\n", err);
	return rc;
}

/* A corrupt state file stops us rather than being overwritten: LIDs that
 * move break every running job. --fresh-state is the explicit way out. */
static int prepare_state(struct sm *sm)
{
	char err[512];

	lid_db_init(&sm->lids);
	if (sm->run.discover_only)
		return 0;
	if (sm->run.fresh_state) {
		size_t len = strlen(sm->conf.state_dir) + 6;

		log_notice("--fresh-state: starting a new LID state file");
		sm->lids.path = xmalloc(len);
		snprintf(sm->lids.path, len, "%s/lids", sm->conf.state_dir);
		sm->lids.dirty = true;
		return 0;
	}
	if (lid_db_load(&sm->lids, sm->conf.state_dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "ibsmd: LID state file is unusable: %s "
			"(left untouched; --fresh-state starts a new one)\n", err);
		return -1;
	}
	if (linkset_load(&sm->routed_links, sm->conf.state_dir, err, sizeof(err)) < 0)
		log_warnx("%s: routing afresh on the first sweep", err);
	return 0;
}

static int run(struct sm *sm)
{
	if (prepare_dirs(sm) < 0 || prepare_state(sm) < 0 || check_simulator() < 0 ||
	    open_port(sm) < 0)
		return 1;
	/* Subnet Administration (sa/), except for a one-shot run */
	sm_engine_start(sm, sm->run.once ? NULL : sa_host_gsi, sm);
	events_setup(sm);
	sm->state = SM_STATE_DISCOVERING;
	if (!sm->run.once)
		sa_host_attach(sm);
	/* the performance manager and the metrics page */
	if (!sm->run.once && pm_host_attach(sm) < 0)
		return 1;
	/* A daemon nobody can ask or stop cleanly is not run. */
	if (!sm->run.once && ctl_init(sm) < 0) {
		fprintf(stderr, "ibsmd: cannot serve the control socket %s: %s\n",
			sm->conf.socket_path, strerror(errno));
		return 1;
	}
	sm_sweep_request(sm);
	after_event(sm);
	event_base_dispatch(sm->base);
	return sm->exit_code;
}

int main(int argc, char **argv)
{
	static struct sm sm;
	struct cli cli = { .conf_path = DEFAULT_CONF };
	struct override *ov = xcalloc((size_t)argc + 1, sizeof(*ov));
	size_t nov = 0;
	int rc;

	if (parse_args(argc, argv, &cli, &sm.run, ov, &nov) < 0 ||
	    load_config(&sm.conf, &cli, ov, nov) < 0 || sm_tables_init(&sm, stderr) < 0) {
		free(ov);
		return 2;
	}
	free(ov);
	log_init(cli.debug ? LOG_LVL_DEBUG : LOG_LVL_ERR + sm.conf.log_level, 1);
	if (cli.check_config || cli.dump_config) {
		if (cli.dump_config)
			conf_dump(&sm.conf, stdout);
		else
			printf("configuration OK\n");
		sm_tables_free(&sm);
		conf_free(&sm.conf);
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	/* Test aid: ibsim sends each trap once; this proves the light sweep
	 * finds what a lost trap would have reported. */
	sm.ignore_traps = getenv("IBSMD_TEST_IGNORE_TRAPS") != NULL;
	ctl_set_config_path(cli.conf_path);   /* control socket: for reloads */
	sm_ar_set_dump(&sm, cli.dump_ar);
	rc = run(&sm);
	teardown(&sm);
	return rc;
}

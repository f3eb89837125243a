/*
 * DOC: libFuzzer target for the HTTP request path of http/httpd.c.
 *
 * One server lives for the whole run on a loopback port; each input is
 * written raw to a new connection, which is half-closed, and the loop runs
 * until the server has closed it (or a bounded number of turns). The server
 * must survive every input and end every page it started.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/httpd.h"

#define MAX_INPUT 4096

static unsigned open_pages;

static void *page_open(void *arg)
{
	open_pages++;
	return calloc(1, sizeof(int));
}

static bool page_step(void *p, size_t budget, struct evbuffer *out)
{
	int *n = p;

	evbuffer_add_printf(out, "line %d\n", (*n)++);
	return *n < 3;
}

static void page_close(void *p)
{
	open_pages--;
	free(p);
}

static const struct httpd_page_ops ops = { page_open, page_step, page_close, "text/plain" };
static struct event_base *base;
static struct httpd *srv;

static void setup(void)
{
	struct httpd_opts o;
	char err[128];

	signal(SIGPIPE, SIG_IGN);
	base = event_base_new();
	httpd_opts_default(&o);
	o.timeout_s = 1;
	srv = httpd_new(base, "127.0.0.1:0", &o, &ops, NULL, err, sizeof(err));
	if (!srv)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char buf[8192];
	int fd;

	if (size > MAX_INPUT)
		return 0;
	if (!base)
		setup();
	a.sin_port = htons(httpd_port(srv));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	/* connections the server keeps (no cap or idle close yet, see
	 * httpd.h) can fill the backlog: that input is skipped, not a crash */
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	if (size && write(fd, data, size) < 0) {
		close(fd);
		return 0;
	}
	shutdown(fd, SHUT_WR);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (int turn = 0; turn < 2000; turn++) {
		ssize_t r;

		event_base_loop(base, EVLOOP_NONBLOCK);
		r = read(fd, buf, sizeof(buf));
		if (r == 0 || (r < 0 && errno != EAGAIN))
			break;
		if (r < 0)
			usleep(100);
	}
	close(fd);
	for (int turn = 0; turn < 100 && open_pages; turn++)
		event_base_loop(base, EVLOOP_NONBLOCK);
	if (open_pages > 1)
		abort();        /* pages must end with their connections */
	return 0;
}

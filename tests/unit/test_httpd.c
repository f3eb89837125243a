/*
 * DOC: tests of the page server (http/httpd.c) on a real loopback socket:
 * the page whole over HTTP/1.0 and chunked over 1.1, 404, 405 (HEAD too),
 * a bad request, a header too large, a client that leaves mid-page or
 * half-closes, the connection cap, the request deadline for a silent or a
 * dribbling client, and a client that stops reading an endless page. The
 * server runs on the test's event_base; each client is a child process
 * with blocking sockets.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "http/httpd.h"

#define LINES 20000             /* about 600 KB: many chunks */

struct page {
	unsigned next, lines;
};

static unsigned open_pages;
static size_t page_bytes;       /* made by every page so far */

/* arg: the number of lines, NULL for LINES */
static void *page_open(void *arg)
{
	struct page *pg = calloc(1, sizeof(struct page));

	open_pages++;
	pg->lines = arg ? *(unsigned *)arg : LINES;
	return pg;
}

static bool page_step(void *p, size_t budget, struct evbuffer *out)
{
	struct page *pg = p;
	size_t start = evbuffer_get_length(out);

	while (pg->next < pg->lines && evbuffer_get_length(out) - start < budget)
		evbuffer_add_printf(out, "metric_line_number %u 0123456789\n", pg->next++);
	page_bytes += evbuffer_get_length(out) - start;
	return pg->next < pg->lines;
}

static void page_close(void *p)
{
	open_pages--;
	free(p);
}

static const struct httpd_page_ops ops = { page_open, page_step, page_close, "text/plain" };

static int dial(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		exit(90);
	return fd;
}

/* Sends req, reads to EOF (or max bytes), returns what came. */
static char *talk(int fd, const char *req, size_t max, size_t *n)
{
	char *buf = malloc(max + 1);
	ssize_t r;

	*n = 0;
	if (req && write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		exit(91);
	while (*n < max && (r = read(fd, buf + *n, max - *n)) > 0)
		*n += (size_t)r;
	buf[*n] = '\0';
	return buf;
}

/* Runs the loop until the child exits; returns its exit status. */
static int run_child(struct event_base *base, pid_t pid)
{
	int status;

	for (int i = 0; i < 3000; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return 98;
}

static struct httpd *server_of(struct event_base *base, unsigned conns, unsigned timeout,
			       unsigned *lines)
{
	struct httpd_opts o;
	char err[128];
	struct httpd *h;

	httpd_opts_default(&o);
	o.max_conns = conns;
	o.timeout_s = timeout;
	o.chunk_bytes = 4096;
	h = httpd_new(base, "127.0.0.1:0", &o, &ops, lines, err, sizeof(err));
	if (!h)
		fail_msg("%s", err);
	return h;
}

static struct httpd *server(struct event_base *base, unsigned conns, unsigned timeout)
{
	return server_of(base, conns, timeout, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds until the server closes fd (read gives EOF or an error),
 * reading and dropping what comes; -1 after `limit` seconds. */
static double until_closed(int fd, double limit)
{
	struct timeval tv = { 0, 100000 };
	double t0 = now_s();
	char buf[4096];

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (now_s() - t0 < limit) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
			return now_s() - t0;
	}
	return -1;
}

static int client_full_page(uint16_t port)
{
	size_t n;
	char *r = talk(dial(port), "GET /metrics HTTP/1.0\r\n\r\n", 1 << 21, &n);
	char *body = strstr(r, "\r\n\r\n");
	char want[64];

	if (strncmp(r + 8, " 200", 4) || !strstr(r, "Content-Type: text/plain") || !body)
		return 1;
	snprintf(want, sizeof(want), "metric_line_number %u 0123456789\n", LINES - 1);
	if (strncmp(body + 4, "metric_line_number 0 ", 21) || strcmp(r + n - strlen(want), want))
		return 2;
	size_t want_len = 0;

	for (unsigned i = 0; i < LINES; i++)
		want_len += (size_t)snprintf(want, sizeof(want), "metric_line_number %u 0123456789\n", i);
	return n - (size_t)(body + 4 - r) == want_len ? 0 : 3;
}

static void test_page(void **state)
{
	struct event_base *base = event_base_new();
	struct httpd *h = server(base, 4, 10);
	struct httpd_stats st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(client_full_page(httpd_port(h)));
	assert_int_equal(run_child(base, pid), 0);
	httpd_get_stats(h, &st);
	assert_int_equal(st.pages, 1);
	assert_int_equal(st.pages_done, 1);
	assert_int_equal(open_pages, 0);
	httpd_free(h);
	event_base_free(base);
}

static int client_errors(uint16_t port)
{
	size_t n;
	char *r;

	r = talk(dial(port), "GET /nothing HTTP/1.0\r\n\r\n", 4096, &n);
	if (strncmp(r + 8, " 404", 4))
		return 1;
	r = talk(dial(port), "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n", 4096, &n);
	if (strncmp(r + 8, " 405", 4) || !strstr(r, "Allow: GET"))
		return 2;
	r = talk(dial(port), "DELETE /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		 4096, &n);
	if (strncmp(r, "HTTP/1.1 405", 12))
		return 3;
	r = talk(dial(port), "\x01\x02garbage\r\n\r\n", 4096, &n);
	if (strncmp(r + 8, " 400", 4))
		return 4;
	/* a header larger than allowed */
	{
		char big[20000];

		memset(big, 'a', sizeof(big));
		memcpy(big, "GET /metrics HTTP/1.0\r\nX: ", 26);
		memcpy(big + sizeof(big) - 5, "\r\n\r\n", 5);
		r = talk(dial(port), big, 4096, &n);
		if (strncmp(r + 8, " 400", 4) && strncmp(r + 8, " 431", 4))
			return 5;
	}
	/* HEAD is not GET: 405, and no body */
	r = talk(dial(port), "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 4096, &n);
	if (strncmp(r, "HTTP/1.1 405", 12) || !strstr(r, "Allow: GET") ||
	    strcmp(strstr(r, "\r\n\r\n"), "\r\n\r\n"))
		return 7;
	/* chunked over HTTP/1.1 */
	r = talk(dial(port), "GET /metrics?x=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		 1 << 21, &n);
	if (strncmp(r, "HTTP/1.1 200", 12) || !strstr(r, "Transfer-Encoding: chunked") ||
	    strcmp(r + n - 5, "0\r\n\r\n"))
		return 6;
	return 0;
}

static void test_errors(void **state)
{
	struct event_base *base = event_base_new();
	struct httpd *h = server(base, 4, 10);
	pid_t pid = fork();

	if (pid == 0)
		_exit(client_errors(httpd_port(h)));
	assert_int_equal(run_child(base, pid), 0);
	assert_int_equal(open_pages, 0);
	httpd_free(h);
	event_base_free(base);
}

/* A client that leaves mid-page ends the page. */
static int client_leave(uint16_t port)
{
	int b;
	size_t n;

	b = dial(port);
	if (write(b, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 34) != 34)
		return 2;
	talk(b, NULL, 8192, &n);
	close(b);               /* with most of the page unread */
	return 0;
}

static void test_leave(void **state)
{
	struct event_base *base = event_base_new();
	unsigned lines = 3000000;   /* about 100 MB: more than the socket buffers hold */
	struct httpd *h = server_of(base, 4, 1, &lines);
	struct httpd_stats st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(client_leave(httpd_port(h)));
	assert_int_equal(run_child(base, pid), 0);
	for (int i = 0; i < 300 && open_pages; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	assert_int_equal(open_pages, 0);
	httpd_get_stats(h, &st);
	assert_int_equal(st.pages, 1);
	assert_int_equal(st.pages_done, 0);
	httpd_free(h);
	event_base_free(base);
}

/* Runs the loop for `seconds` or until the child exits. */
static void run_for(struct event_base *base, double seconds)
{
	double t0 = now_s();

	while (now_s() - t0 < seconds) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
}

/* A keep-alive request, then the client half-closes: the page ends with
 * the connection and nothing of the request is left behind (the leak
 * checker of the sanitizer build sees a request evhttp let go of). */
static int client_half_close(uint16_t port)
{
	int fd = dial(port);
	const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";

	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		return 1;
	shutdown(fd, SHUT_WR);
	return until_closed(fd, 5) < 0 ? 2 : 0;
}

static void test_half_close(void **state)
{
	struct event_base *base = event_base_new();
	struct httpd *h = server(base, 4, 5);
	struct httpd_stats st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(client_half_close(httpd_port(h)));
	assert_int_equal(run_child(base, pid), 0);
	run_for(base, 0.1);
	assert_int_equal(open_pages, 0);
	httpd_get_stats(h, &st);
	assert_int_equal(st.conns, 0);
	httpd_free(h);
	event_base_free(base);
}

/* Two connections held open (max_conns 2): a third is closed at once,
 * unanswered, even with a request; once one of the two is gone a new one
 * is served. */
static int client_cap(uint16_t port)
{
	int a = dial(port), b = dial(port), c;
	const char *req = "GET /metrics HTTP/1.0\r\n\r\n";
	size_t n;
	double t;
	char *r;

	usleep(200000);
	c = dial(port);
	if (write(c, req, strlen(req)) != (ssize_t)strlen(req))
		return 1;
	r = talk(c, NULL, 4096, &n);
	if (n)
		return 2;       /* the third was answered */
	t = until_closed(a, 0);
	close(a);
	usleep(200000);
	r = talk(dial(port), req, 1 << 21, &n);
	if (strncmp(r + 8, " 200", 4))
		return 3;
	close(b);
	return t == -1 ? 0 : 4;
}

static void test_cap(void **state)
{
	struct event_base *base = event_base_new();
	struct httpd *h = server(base, 2, 30);
	struct httpd_stats st;
	double t0 = now_s();
	pid_t pid = fork();

	if (pid == 0)
		_exit(client_cap(httpd_port(h)));
	assert_int_equal(run_child(base, pid), 0);
	assert_true(now_s() - t0 < 5);      /* not closed by the 30 s deadline */
	run_for(base, 0.1);
	httpd_get_stats(h, &st);
	assert_int_equal(st.refused, 1);
	assert_int_equal(st.conns, 0);
	assert_int_equal(st.pages_done, 1);
	httpd_free(h);
	event_base_free(base);
}

/* timeout_s 1: a client that says nothing, and one that sends a request
 * a byte every 200 ms without ever ending it, are both closed after about
 * a second; evhttp's own idle timeout restarts with each byte and would
 * let the second stay (its 63 bytes take 12.6 s). Not before 0.8 s;
 * up to 4 s, as a loaded machine may be late to close. */
static int client_deadline(uint16_t port)
{
	const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Long: aaaaaaaaaaaaaaaaaaaaaaa";
	int fd = dial(port);
	double t = until_closed(fd, 6), t0;

	if (t < 0.8 || t > 4)
		return 1;
	fd = dial(port);
	t0 = now_s();
	for (const char *p = req; *p && now_s() - t0 < 6; p++) {
		if (write(fd, p, 1) != 1)
			break;  /* closed */
		if (until_closed(fd, 0.2) >= 0)
			break;
	}
	t = now_s() - t0;
	return t < 0.8 || t > 4 ? 2 : 0;
}

static void test_deadline(void **state)
{
	struct event_base *base = event_base_new();
	struct httpd *h = server(base, 4, 1);
	struct httpd_stats st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(client_deadline(httpd_port(h)));
	assert_int_equal(run_child(base, pid), 0);
	run_for(base, 0.1);
	httpd_get_stats(h, &st);
	assert_int_equal(st.timeouts, 2);
	assert_int_equal(st.conns, 0);
	httpd_free(h);
	event_base_free(base);
}

/* A client asks for an endless page (30 M lines, about 1 GB), reads a
 * little and stops reading: the page is made only as fast as it leaves,
 * so what was made stays within the socket buffers and a few chunks, and
 * the connection ends about timeout_s after the reply stalled. */
static int client_stall(uint16_t port)
{
	int fd, small = 4096;
	size_t n;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	{
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return 1;
	}
	free(talk(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 1024, &n));
	sleep(4);               /* not reading */
	return 0;
}

static void test_slow_reader(void **state)
{
	struct event_base *base = event_base_new();
	unsigned lines = 30000000;
	struct httpd *h = server_of(base, 4, 1, &lines);
	struct httpd_stats st;
	double t0 = now_s(), t_end = -1;
	pid_t pid;

	page_bytes = 0;
	pid = fork();
	if (pid == 0)
		_exit(client_stall(httpd_port(h)));
	while (now_s() - t0 < 3.5) {
		run_for(base, 0.01);
		httpd_get_stats(h, &st);
		if (st.pages && !st.streaming && t_end < 0)
			t_end = now_s() - t0;
	}
	print_message("page bytes made %zu, page ended after %.2f s\n", page_bytes, t_end);
	assert_true(t_end > 0.5 && t_end < 3);
	assert_true(page_bytes < (16u << 20));
	assert_int_equal(open_pages, 0);
	assert_int_equal(run_child(base, pid), 0);
	httpd_free(h);
	event_base_free(base);
}

static void test_listen_syntax(void **state)
{
	char a[64], err[128];
	uint16_t p;

	assert_int_equal(httpd_parse_listen("127.0.0.1:9683", a, sizeof(a), &p, err, 128), 0);
	assert_string_equal(a, "127.0.0.1");
	assert_int_equal(p, 9683);
	assert_int_equal(httpd_parse_listen("localhost:1", a, sizeof(a), &p, err, 128), 0);
	assert_string_equal(a, "127.0.0.1");
	assert_int_equal(httpd_parse_listen("[::1]:80", a, sizeof(a), &p, err, 128), 0);
	assert_string_equal(a, "::1");
	assert_int_equal(httpd_parse_listen("host.example:80", a, sizeof(a), &p, err, 128), -1);
	assert_int_equal(httpd_parse_listen("127.0.0.1", a, sizeof(a), &p, err, 128), -1);
	assert_int_equal(httpd_parse_listen("127.0.0.1:65536", a, sizeof(a), &p, err, 128), -1);
	assert_int_equal(httpd_parse_listen("127.0.0.1:-1", a, sizeof(a), &p, err, 128), -1);
	assert_int_equal(httpd_parse_listen("[::1:80", a, sizeof(a), &p, err, 128), -1);
	assert_int_equal(httpd_parse_listen(":80", a, sizeof(a), &p, err, 128), -1);
	assert_int_equal(httpd_parse_listen("9683", a, sizeof(a), &p, err, 128), -1);
	assert_int_equal(httpd_parse_listen("", a, sizeof(a), &p, err, 128), -1);
	/* every address only when written so */
	assert_int_equal(httpd_parse_listen("*:9683", a, sizeof(a), &p, err, 128), 0);
	assert_string_equal(a, "0.0.0.0");
	assert_int_equal(httpd_parse_listen("0.0.0.0:9683", a, sizeof(a), &p, err, 128), 0);
	assert_string_equal(a, "0.0.0.0");
	assert_int_equal(httpd_parse_listen("[::]:9683", a, sizeof(a), &p, err, 128), 0);
	assert_string_equal(a, "::");
	assert_int_equal(httpd_parse_listen("10.1.2.3:9683", a, sizeof(a), &p, err, 128), 0);
	assert_string_equal(a, "10.1.2.3");
	assert_int_equal(httpd_parse_listen("[*]:9683", a, sizeof(a), &p, err, 128), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_leave),
		cmocka_unit_test(test_half_close),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_slow_reader),
		cmocka_unit_test(test_listen_syntax),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * DOC: tests of the page server (http/httpd.c) on a real loopback socket:
 * the page whole over HTTP/1.0 and chunked over 1.1, 404 and 405, a bad
 * request, a header too large, and a client that leaves mid-page. The server runs on
 * the test's event_base; each client is a child process with blocking
 * sockets.
 */
#include <arpa/inet.h>
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "http/httpd.h"

#define LINES 20000             /* about 600 KB: many chunks */

struct page {
	unsigned next;
};

static unsigned open_pages;

static void *page_open(void *arg)
{
	open_pages++;
	return calloc(1, sizeof(struct page));
}

static bool page_step(void *p, size_t budget, struct evbuffer *out)
{
	struct page *pg = p;
	size_t start = evbuffer_get_length(out);

	while (pg->next < LINES && evbuffer_get_length(out) - start < budget)
		evbuffer_add_printf(out, "metric_line_number %u 0123456789\n", pg->next++);
	return pg->next < LINES;
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

static struct httpd *server(struct event_base *base, unsigned conns, unsigned timeout)
{
	struct httpd_opts o;
	char err[128];
	struct httpd *h;

	httpd_opts_default(&o);
	o.max_conns = conns;
	o.timeout_s = timeout;
	o.chunk_bytes = 4096;
	h = httpd_new(base, "127.0.0.1:0", &o, &ops, NULL, err, sizeof(err));
	if (!h)
		fail_msg("%s", err);
	return h;
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
	if (n && strncmp(r + 8, " 400", 4))
		return 4;
	/* a header larger than allowed */
	{
		char big[20000];

		memset(big, 'a', sizeof(big));
		memcpy(big, "GET /metrics HTTP/1.0\r\nX: ", 26);
		memcpy(big + sizeof(big) - 5, "\r\n\r\n", 5);
		r = talk(dial(port), big, 4096, &n);
		if (strstr(r, " 200 "))
			return 5;
	}
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
	struct httpd *h = server(base, 4, 1);
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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_leave),
		cmocka_unit_test(test_listen_syntax),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * DOC: the page server (see http/httpd.h).
 *
 * libevent 2.1's evhttp has no connection limit of its own (2.2 adds
 * evhttp_set_max_connections). max_conns is therefore not enforced yet:
 * see httpd.h.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/httpd.h"

struct httpd {
	struct event_base *base;
	struct evhttp *http;
	struct evhttp_bound_socket *bound;
	struct httpd_opts o;
	struct httpd_page_ops ops;
	void *arg;
	uint16_t port;
	struct httpd_stats st;
};

/* A page being sent on one request. */
struct stream {
	struct httpd *h;
	struct evhttp_request *req;
	struct evhttp_connection *evcon;
	void *page;
};

void httpd_opts_default(struct httpd_opts *o)
{
	o->max_conns = 8;
	o->timeout_s = 30;
	o->max_header_bytes = 8192;
	o->chunk_bytes = 32u << 10;
	o->path = "/metrics";
}

/* --- the listen address --- */

static int port_of(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

static int split(const char *s, char *addr, size_t addrlen, const char **port)
{
	const char *colon;
	size_t n;

	if (*s == '[') {
		colon = strstr(s, "]:");
		s++;
		n = colon ? (size_t)(colon - s) : 0;
		*port = colon ? colon + 2 : NULL;
	} else {
		colon = strrchr(s, ':');
		n = colon ? (size_t)(colon - s) : 0;
		*port = colon ? colon + 1 : NULL;
	}
	if (!colon || !n || n >= addrlen)
		return -1;
	memcpy(addr, s, n);
	addr[n] = '\0';
	return 0;
}

int httpd_parse_listen(const char *s, char *addr, size_t addrlen, uint16_t *port, char *err,
		       size_t errlen)
{
	const char *p;
	unsigned char buf[16];
	bool v6 = s && *s == '[';

	if (!s || split(s, addr, addrlen, &p) < 0 || port_of(p, port) < 0) {
		snprintf(err, errlen, "expected ADDR:PORT or [ADDR]:PORT, got \"%s\"", s ? s : "");
		return -1;
	}
	if (!v6 && !strcmp(addr, "localhost"))
		snprintf(addr, addrlen, "127.0.0.1");
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, buf) != 1) {
		snprintf(err, errlen, "\"%s\" is not a numeric IPv%c address", addr, v6 ? '6' : '4');
		return -1;
	}
	return 0;
}

/* --- pages --- */

static void stream_free(struct stream *s)
{
	s->h->ops.close(s->page);
	s->h->st.streaming--;
	free(s);
}

static void on_close(struct evhttp_connection *evcon, void *arg)
{
	stream_free(arg);       /* the client went away mid-page */
}

static void send_next(struct stream *s);

static void on_sent(struct evhttp_connection *evcon, void *arg)
{
	send_next(arg);
}

static void send_next(struct stream *s)
{
	struct evbuffer *buf = evbuffer_new();
	bool more = buf && s->h->ops.step(s->page, s->h->o.chunk_bytes, buf);

	if (buf && evbuffer_get_length(buf))
		evhttp_send_reply_chunk_with_cb(s->req, buf, more ? on_sent : NULL, s);
	if (buf)
		evbuffer_free(buf);
	if (more && buf)
		return;
	evhttp_connection_set_closecb(s->evcon, NULL, NULL);
	evhttp_send_reply_end(s->req);
	s->h->st.pages_done++;
	stream_free(s);
}

static void serve_page(struct httpd *h, struct evhttp_request *req)
{
	struct stream *s = calloc(1, sizeof(*s));
	void *page = s ? h->ops.open(h->arg) : NULL;

	if (!page) {
		free(s);
		evhttp_send_error(req, 503, NULL);
		return;
	}
	s->h = h;
	s->req = req;
	s->page = page;
	s->evcon = evhttp_request_get_connection(req);
	h->st.pages++;
	h->st.streaming++;
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  h->ops.content_type);
	evhttp_send_reply_start(req, HTTP_OK, "OK");
	evhttp_connection_set_closecb(s->evcon, on_close, s);
	send_next(s);
}

/* 405 with its Allow header (evhttp_send_error would drop the header). */
static void method_not_allowed(struct evhttp_request *req)
{
	struct evkeyvalq *hdr = evhttp_request_get_output_headers(req);
	struct evbuffer *body = evbuffer_new();

	evhttp_add_header(hdr, "Allow", "GET");
	evhttp_add_header(hdr, "Content-Type", "text/plain");
	evhttp_add_header(hdr, "Connection", "close");
	if (body)
		evbuffer_add_printf(body, "only GET\n");
	evhttp_send_reply(req, 405, "Method Not Allowed", body);
	if (body)
		evbuffer_free(body);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct httpd *h = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;

	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET) {
		method_not_allowed(req);
	} else if (!path || strcmp(path, h->o.path)) {
		evhttp_send_error(req, HTTP_NOTFOUND, NULL);
	} else {
		serve_page(h, req);
	}
}

/* --- the server --- */

static int start(struct httpd *h, const char *listen, char *err, size_t errlen)
{
	char addr[64];
	uint16_t port;

	if (httpd_parse_listen(listen, addr, sizeof(addr), &port, err, errlen) < 0)
		return -1;
	h->http = evhttp_new(h->base);
	if (!h->http) {
		snprintf(err, errlen, "evhttp_new failed");
		return -1;
	}
	/* every method reaches on_request, which answers 405 (evhttp says 501) */
	evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
				   EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS |
				   EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
	evhttp_set_timeout(h->http, (int)h->o.timeout_s);
	evhttp_set_max_headers_size(h->http, (ev_ssize_t)h->o.max_header_bytes);
	evhttp_set_max_body_size(h->http, 0);
	evhttp_set_gencb(h->http, on_request, h);
	h->bound = evhttp_bind_socket_with_handle(h->http, addr, port);
	if (!h->bound) {
		snprintf(err, errlen, "cannot listen on %s: %s", listen, strerror(errno));
		return -1;
	}
	return 0;
}

static uint16_t bound_port(struct evhttp_bound_socket *b)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(evhttp_bound_socket_get_fd(b), (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

struct httpd *httpd_new(struct event_base *base, const char *listen, const struct httpd_opts *o,
			const struct httpd_page_ops *ops, void *arg, char *err, size_t errlen)
{
	struct httpd *h = calloc(1, sizeof(*h));

	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->base = base;
	h->o = *o;
	if (!h->o.max_conns)
		h->o.max_conns = 1;
	h->ops = *ops;
	h->arg = arg;
	if (start(h, listen, err, errlen) < 0) {
		httpd_free(h);
		return NULL;
	}
	h->port = bound_port(h->bound);
	return h;
}

void httpd_free(struct httpd *h)
{
	if (!h)
		return;
	/* frees every connection: on_close still sees h */
	if (h->http)
		evhttp_free(h->http);
	free(h);
}

uint16_t httpd_port(const struct httpd *h)
{
	return h->port;
}

void httpd_get_stats(const struct httpd *h, struct httpd_stats *st)
{
	*st = h->st;
}

/*
 * DOC: the page server (see http/httpd.h).
 *
 * libevent 2.1's evhttp has no connection limit (2.2 adds
 * evhttp_set_max_connections) and tells its user nothing about a
 * connection before its first request. Each connection is therefore
 * tracked from its start by a `conn` made in the bufferevent callback
 * (evhttp_set_bevcb, called once per accepted socket, before evhttp builds
 * its connection on that bufferevent). One loop turn later the conn finds
 * evhttp's connection as the bufferevent's callback argument and installs
 * a close callback, which evhttp_connection_free calls for every incoming
 * connection. The conn holds a reference on the bufferevent until then, so
 * a connection that evhttp freed within that turn is seen as such (its
 * callbacks are cleared) instead of being touched after its free.
 *
 * The same conn carries the request deadline: from its start, and again
 * after each reply, a connection has timeout_s to deliver a whole request
 * (evhttp's own read timeout restarts with every byte, so a client sending
 * a byte now and then would hold its slot for ever).
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

struct conn;

/* How much later evhttp's read and write timeouts fall than the request
 * deadline of the same length. */
#define EVHTTP_IDLE_SLACK_US 20000

struct httpd {
	struct event_base *base;
	struct evhttp *http;
	struct evhttp_bound_socket *bound;
	struct httpd_opts o;
	struct httpd_page_ops ops;
	void *arg;
	uint16_t port;
	struct httpd_stats st;
	struct conn *conns;         /* every connection evhttp has, refused ones too */
};

/* One accepted connection. */
struct conn {
	struct httpd *h;
	struct conn *next;
	struct bufferevent *bev;    /* referenced until the conn ends */
	struct evhttp_connection *evcon;    /* NULL until attached */
	struct event *timer;        /* attach, then the request deadline */
	struct timeval start;       /* accepted (the loop's cached time) */
	struct stream *stream;
	bool refused;               /* over max_conns: closed at once */
};

/* A page being sent on one request. */
struct stream {
	struct conn *c;
	struct evhttp_request *req;
	void *page;
};

void httpd_opts_default(struct httpd_opts *o)
{
	o->max_conns = 16;
	o->timeout_s = 10;
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
	else if (!v6 && !strcmp(addr, "*"))
		snprintf(addr, addrlen, "0.0.0.0");
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, buf) != 1) {
		snprintf(err, errlen, "\"%s\" is not a numeric IPv%c address", addr, v6 ? '6' : '4');
		return -1;
	}
	return 0;
}

/* --- connections --- */

static void conn_end(struct conn *c);
static void on_conn_close(struct evhttp_connection *evcon, void *arg);

static void conn_arm(struct conn *c, unsigned seconds)
{
	struct timeval tv = { (time_t)seconds, 0 };

	evtimer_add(c->timer, &tv);
}

/* The first request's deadline: timeout_s from the accept, not from the
 * attach a turn later. evhttp's read timeout runs from the accept too, and
 * ends an idle connection without our counting it: armed at the attach,
 * our deadline fell after it whenever the loop took long to come round
 * (a 300 ms stall there failed test_deadline every time; CI's ASan build
 * once did). Now evhttp's falls EVHTTP_IDLE_SLACK_US after ours (start()),
 * even when both are due in the same turn. */
static void conn_arm_from_start(struct conn *c)
{
	struct timeval now, end = { (time_t)c->h->o.timeout_s, 0 }, left;

	event_base_gettimeofday_cached(c->h->base, &now);
	evutil_timeradd(&c->start, &end, &end);
	if (evutil_timercmp(&end, &now, <))
		evutil_timerclear(&left);
	else
		evutil_timersub(&end, &now, &left);
	if (left.tv_sec > (time_t)c->h->o.timeout_s)   /* the clock was set back */
		left = (struct timeval){ (time_t)c->h->o.timeout_s, 0 };
	evtimer_add(c->timer, &left);
}

/* Finds evhttp's connection on our bufferevent and asks to hear of its
 * end; false if evhttp has already freed it (bufferevent_free clears the
 * callbacks). */
static bool conn_attach(struct conn *c)
{
	bufferevent_event_cb eventcb;
	void *evcon;

	if (c->evcon)
		return true;
	bufferevent_getcb(c->bev, NULL, NULL, &eventcb, &evcon);
	if (!eventcb || !evcon)
		return false;
	c->evcon = evcon;
	evhttp_connection_set_closecb(c->evcon, on_conn_close, c);
	return true;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (!c->evcon) {
		if (!conn_attach(c)) {
			conn_end(c);
			return;
		}
		if (!c->refused) {
			conn_arm_from_start(c);
			return;
		}
	} else {
		c->h->st.timeouts++;
	}
	evhttp_connection_free(c->evcon);   /* calls on_conn_close */
}

/* evhttp's bufferevent callback: a socket was just accepted. */
static struct bufferevent *new_conn(struct event_base *base, void *arg)
{
	struct httpd *h = arg;
	struct conn *c = calloc(1, sizeof(*c));
	struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);

	if (c)
		c->timer = evtimer_new(base, on_timer, c);
	if (!c || !bev || !c->timer) {
		if (c && c->timer)
			event_free(c->timer);
		free(c);
		return bev;     /* untracked: its request gets 503 */
	}
	c->h = h;
	c->bev = bev;
	event_base_gettimeofday_cached(base, &c->start);
	c->refused = h->st.conns >= h->o.max_conns;
	if (c->refused)
		h->st.refused++;
	else
		h->st.conns++;
	bufferevent_incref(bev);
	c->next = h->conns;
	h->conns = c;
	conn_arm(c, 0);
	return bev;
}

static void conn_unlink(struct conn *c)
{
	struct conn **pp = &c->h->conns;

	while (*pp != c)
		pp = &(*pp)->next;
	*pp = c->next;
}

static void conn_end(struct conn *c)
{
	struct httpd *h = c->h;

	conn_unlink(c);
	if (!c->refused)
		h->st.conns--;
	event_free(c->timer);
	bufferevent_decref(c->bev);
	free(c);
}

static struct conn *conn_of(struct httpd *h, struct evhttp_connection *evcon)
{
	struct bufferevent *bev = evhttp_connection_get_bufferevent(evcon);

	for (struct conn *c = h->conns; c; c = c->next) {
		if (c->bev == bev)
			return conn_attach(c) ? c : NULL;
	}
	return NULL;
}

/* --- pages --- */

static void stream_free(struct stream *s)
{
	s->c->h->ops.close(s->page);
	s->c->h->st.streaming--;
	s->c->stream = NULL;
	free(s);
}

/* The connection is going while its page is unfinished. When evhttp
 * failed it (the client left, a timeout), it has let go of the request
 * (evhttp_connection_incoming_fail leaves a request the user still holds
 * off the connection, which then no longer frees it);
 * evhttp_send_reply_end frees such a request. When the server is being
 * freed, the request is still on the connection, which frees it. */
static void stream_abort(struct stream *s)
{
	struct evhttp_request *req = s->req;

	stream_free(s);
	if (!evhttp_request_get_connection(req))
		evhttp_send_reply_end(req);
}

static void on_conn_close(struct evhttp_connection *evcon, void *arg)
{
	struct conn *c = arg;

	if (c->stream)
		stream_abort(c->stream);
	conn_end(c);
}

static void send_next(struct stream *s);

static void on_sent(struct evhttp_connection *evcon, void *arg)
{
	send_next(arg);
}

static void send_next(struct stream *s)
{
	struct evhttp_request *req;
	struct evbuffer *buf = evbuffer_new();
	bool more = buf && s->c->h->ops.step(s->page, s->c->h->o.chunk_bytes, buf);

	if (buf && evbuffer_get_length(buf))
		evhttp_send_reply_chunk_with_cb(s->req, buf, more ? on_sent : NULL, s);
	if (buf)
		evbuffer_free(buf);
	if (more && buf)
		return;
	/* the page ends first: the end of the reply may free the connection */
	req = s->req;
	s->c->h->st.pages_done++;
	stream_free(s);
	evhttp_send_reply_end(req);
}

static void serve_page(struct conn *c, struct evhttp_request *req)
{
	struct httpd *h = c->h;
	struct stream *s = calloc(1, sizeof(*s));
	void *page = s ? h->ops.open(h->arg) : NULL;

	if (!page) {
		free(s);
		evhttp_send_error(req, 503, NULL);
		return;
	}
	s->c = c;
	s->req = req;
	s->page = page;
	c->stream = s;
	h->st.pages++;
	h->st.streaming++;
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  h->ops.content_type);
	evhttp_send_reply_start(req, HTTP_OK, "OK");
	send_next(s);
}

/* 405 with its Allow header (evhttp_send_error would drop the header);
 * no body for HEAD, which evhttp 2.1 would send. */
static void method_not_allowed(struct evhttp_request *req)
{
	struct evkeyvalq *hdr = evhttp_request_get_output_headers(req);
	bool head = evhttp_request_get_command(req) == EVHTTP_REQ_HEAD;
	struct evbuffer *body = head ? NULL : evbuffer_new();

	evhttp_add_header(hdr, "Allow", "GET");
	evhttp_add_header(hdr, "Content-Type", "text/plain");
	evhttp_add_header(hdr, "Connection", "close");
	if (body)
		evbuffer_add_printf(body, "only GET\n");
	evhttp_send_reply(req, 405, "Method Not Allowed", body);
	if (body)
		evbuffer_free(body);
}

/* The reply has left: the next request has timeout_s to arrive. */
static void on_complete(struct evhttp_request *req, void *arg)
{
	struct conn *c = arg;

	conn_arm(c, c->h->o.timeout_s);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct httpd *h = arg;
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct conn *c = conn_of(h, evcon);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;

	if (c && c->refused) {
		evhttp_connection_free(evcon);      /* calls on_conn_close */
		return;
	}
	if (c) {
		evtimer_del(c->timer);
		evhttp_request_set_on_complete_cb(req, on_complete, c);
	}
	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET)
		method_not_allowed(req);
	else if (!path || strcmp(path, h->o.path))
		evhttp_send_error(req, HTTP_NOTFOUND, NULL);
	else if (!c)
		evhttp_send_error(req, 503, NULL);
	else
		serve_page(c, req);
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
	/* a reply that stops moving for timeout_s ends its connection; a
	 * hair later than the request deadline (conn_arm_from_start), which
	 * must end an idle connection first: it counts the timeout, evhttp's
	 * end would not */
	evhttp_set_timeout_tv(h->http, &(struct timeval){ (time_t)h->o.timeout_s,
							EVHTTP_IDLE_SLACK_US });
	evhttp_set_max_headers_size(h->http, (ev_ssize_t)h->o.max_header_bytes);
	evhttp_set_max_body_size(h->http, 0);
	evhttp_set_bevcb(h->http, new_conn, h);
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
	if (!h->o.timeout_s)
		h->o.timeout_s = 1;
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
	/* frees every connection: an attached conn ends in on_conn_close,
	 * one not attached yet is left with a freed bufferevent */
	if (h->http)
		evhttp_free(h->http);
	while (h->conns)
		conn_end(h->conns);
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

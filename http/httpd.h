/*
 * DOC: a small HTTP server for one streamed page (GET /metrics), on
 * libevent's evhttp.
 *
 * It lives in its own room because it is a socket server like ctl/, not a
 * part of the performance manager: it knows nothing of what the page says
 * (a producer gives it chunk after chunk) and nothing of the SM.
 *
 * Anybody who can reach the port may connect, so it defends itself the way
 * the control socket does: it listens where it is told (an address and a
 * port; the daemon's default is off, and never beyond localhost unless
 * configured), closes a connection idle for timeout_s, refuses headers over
 * max_header_bytes and any request body. GET of `path` streams the page:
 * one chunk of about chunk_bytes at a time, the next only once the last has
 * left, so a slow reader costs one chunk of memory and never blocks the
 * loop. Other paths get 404, other methods 405; what evhttp cannot parse
 * gets 400. A client that goes away mid-page just ends it.
 *
 * Not yet: a cap on connections (max_conns is carried but not enforced).
 * libevent 2.1 evhttp has no hook that sees every connection close; a
 * filter bufferevent handed out by evhttp_set_bevcb (whose free_context
 * would be that hook) left requests unread in our test. And a connection
 * that never sends a request was not closed after timeout_s in our test
 * (evhttp_set_timeout): both are open items.
 */
#ifndef IBSM_HTTP_HTTPD_H
#define IBSM_HTTP_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct evbuffer;

/* The page: open() starts one (NULL: 503), step() appends at least
 * `budget` bytes to out unless the page ends, and returns true while more
 * is to come; close() ends it, finished or not. */
struct httpd_page_ops {
	void *(*open)(void *arg);
	bool (*step)(void *page, size_t budget, struct evbuffer *out);
	void (*close)(void *page);
	const char *content_type;
};

struct httpd_opts {
	unsigned max_conns;         /* connections at a time: not enforced yet */
	unsigned timeout_s;         /* idle read or write */
	size_t max_header_bytes;
	size_t chunk_bytes;
	const char *path;           /* "/metrics" */
};

void httpd_opts_default(struct httpd_opts *o);

/* "ADDR:PORT" with a numeric IPv4 address, "[ADDR]:PORT" with IPv6, or
 * "localhost:PORT" (127.0.0.1). 0, or -1 with a message. */
int httpd_parse_listen(const char *s, char *addr, size_t addrlen, uint16_t *port, char *err,
		       size_t errlen);

struct httpd;

/* Listens at `listen` (httpd_parse_listen syntax; port 0 picks one). NULL
 * with a message on failure. */
struct httpd *httpd_new(struct event_base *base, const char *listen, const struct httpd_opts *o,
			const struct httpd_page_ops *ops, void *arg, char *err, size_t errlen);
void httpd_free(struct httpd *h);
/* The port it listens on. */
uint16_t httpd_port(const struct httpd *h);

struct httpd_stats {
	uint64_t pages;             /* pages started */
	uint64_t pages_done;        /* ... sent to the end */
	unsigned streaming;         /* pages in progress */
};

void httpd_get_stats(const struct httpd *h, struct httpd_stats *st);

#endif

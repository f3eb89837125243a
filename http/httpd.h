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
 * configured), caps connections, closes slow ones, refuses headers over
 * max_header_bytes and any request body. GET of `path` streams the page:
 * one chunk of about chunk_bytes at a time, the next only once the last has
 * left, so a slow reader costs one chunk of memory and never blocks the
 * loop. Other paths get 404, other methods 405; what evhttp cannot parse
 * gets 400. A client that goes away mid-page just ends it.
 *
 * At most max_conns connections are served at a time; one more is closed
 * at once, unanswered. A connection must deliver a whole request within
 * timeout_s of its start (or of its last reply), and a reply that moves no
 * byte for timeout_s, or is not over timeout_s after the client last sent
 * anything, ends its connection: a client that connects and says nothing,
 * sends a request byte by byte, or stops reading the page holds its slot
 * for timeout_s at most.
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
	unsigned max_conns;         /* connections at a time (default 16) */
	unsigned timeout_s;         /* a request, or a stalled reply (default 10) */
	size_t max_header_bytes;
	size_t chunk_bytes;
	const char *path;           /* "/metrics" */
};

void httpd_opts_default(struct httpd_opts *o);

/* "ADDR:PORT" with a numeric IPv4 address, "[ADDR]:PORT" with IPv6,
 * "localhost:PORT" (127.0.0.1) or "*:PORT" (0.0.0.0, every IPv4 address):
 * there is no default address, so nothing listens beyond localhost unless
 * written so. 0, or -1 with a message. */
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
	unsigned conns;             /* connections open, refused ones not counted */
	uint64_t refused;           /* connections closed over max_conns */
	uint64_t timeouts;          /* connections closed without a whole request in time */
};

void httpd_get_stats(const struct httpd *h, struct httpd_stats *st);

#endif

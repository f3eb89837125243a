/*
 * DOC: control connections: framing, backpressure, streamed replies and
 * the memory and time any client may take.
 *
 * Every client is a bufferevent on the SM's event_base, served by one
 * work loop (client_work) that runs from its read and write callbacks:
 *  - Backpressure: the next request line is taken only once all output
 *    before it has been taken by the client (handed to the kernel). Until
 *    then the input stays in the bufferevent, which stops reading at
 *    CTL_MAX_REQUEST bytes, and the kernel's socket buffer makes the
 *    client's writes block. A client that pipelines requests and never
 *    reads costs one reply, not one per request.
 *  - Streams: "nodes", "ports" and "links" are written from a view
 *    (ctl_view.h) a chunk at a time, refilled when the output falls below
 *    half of CTL_STREAM_CHUNK, so a large reply never exists whole. Events
 *    and "sweep wait" replies that come meanwhile are held back and follow
 *    the reply, so lines never interleave.
 *  - Fairness: at most CTL_TURN_UNITS requests or chunks per client per
 *    loop turn, then a zero-delay timer lets every other fd (the umad pump,
 *    other clients) have its turn. Clients without admin rights together
 *    get at most CTL_CLIENT_SHARE per cent of the loop's time, and
 *    CTL_CLIENT_SHARE_SWEEP while a sweep runs (a token bucket on the
 *    measured duration of their work); admins are served at once.
 *  - Memory: a reply or event for a client with more than CTL_MAX_OUTQ
 *    (CTL_MAX_EVQ for an event) unsent drops it, and so does, after any
 *    output grows, everything queued for all clients plus the views they
 *    hold passing CTL_MAX_QUEUED: the client with the most unsent bytes
 *    goes first.
 * Freeing a client is deferred to a zero-delay reaper event, so no
 * callback ever runs on a freed client.
 */
#include "config.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "ctl/ctl_int.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "sm/sm.h"

#define SHARE_BURST_US 1000      /* credit the clients may save up */

static void client_work(struct ctl_client *cl);

/* ---- output ---- */

size_t ctl_client_queued(const struct ctl_client *cl)
{
	return evbuffer_get_length(bufferevent_get_output(cl->bev)) +
	       evbuffer_get_length(cl->held);
}

/* Hand what we can to the kernel now rather than on the next loop turn:
 * under the simulator every turn includes a pump of up to a millisecond,
 * and a connection closed right after (idle timeout) still gets its last
 * line. A socket bufferevent keeps the start of its output frozen so that
 * only it drains the buffer, and evbuffer_write() refuses a frozen buffer:
 * unfreeze around the write, as the bufferevent's own write callback does.
 * What does not fit stays queued for the bufferevent; errors show up
 * there too. */
static void flush(struct ctl_client *cl)
{
	struct evbuffer *out = bufferevent_get_output(cl->bev);
	int n;

	if (!evbuffer_get_length(out))
		return;
	evbuffer_unfreeze(out, 1);
	n = evbuffer_write(out, bufferevent_getfd(cl->bev));
	evbuffer_freeze(out, 1);
	if (n > 0)
		cl->last_active_ms = clock_ms();
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		log_debug("control client pid %d: %s", (int)cl->peer.pid, strerror(errno));
}

/* A line straight to the socket when nothing is queued before it: most
 * replies fit, and then neither the output buffer nor the write event
 * (two epoll_ctl calls and a callback) is involved. Returns the bytes
 * written (of len + 1 with the '\n'). */
static size_t write_direct(struct ctl_client *cl, const char *s, size_t len)
{
	static char nl[] = "\n";
	struct iovec iov[2] = { { (void *)(uintptr_t)s, len }, { nl, 1 } };
	ssize_t n;

	if (cl->stream || evbuffer_get_length(bufferevent_get_output(cl->bev)))
		return 0;
	n = writev(bufferevent_getfd(cl->bev), iov, 2);
	if (n <= 0)
		return 0;    /* EAGAIN, or an error the bufferevent will see */
	cl->last_active_ms = clock_ms();
	return (size_t)n;
}

/* Queue one message; drops the client when too much is unsent already. */
static void client_send(struct ctl_client *cl, json_object *msg, size_t limit)
{
	struct evbuffer *to;
	const char *s;
	size_t len, done;

	if (cl->dead) {
		json_object_put(msg);
		return;
	}
	if (ctl_client_queued(cl) > limit) {
		ctl_ratelog(&cl->ctl->drops, LOG_LVL_WARNING,
			    "control client pid %d uid %d: %zu bytes unread, dropping it",
			    (int)cl->peer.pid, (int)cl->peer.uid, ctl_client_queued(cl));
		ctl_client_kill(cl);
		json_object_put(msg);
		return;
	}
	s = ctl_to_line(msg, &len);
	done = write_direct(cl, s, len);
	/* never inside a streamed reply's line: after it */
	to = cl->stream ? cl->held : bufferevent_get_output(cl->bev);
	if (done < len)
		evbuffer_add(to, s + done, len - done);
	if (done < len + 1)
		evbuffer_add(to, "\n", 1);
	ctl_queued(cl->ctl, len + 1 - done);
	json_object_put(msg);
}

void ctl_reply(struct ctl_client *cl, json_object *msg)
{
	client_send(cl, msg, CTL_MAX_OUTQ);
}

void ctl_send_event(struct ctl_client *cl, json_object *ev)
{
	client_send(cl, ev, CTL_MAX_EVQ);
}

void ctl_client_close(struct ctl_client *cl, enum ctl_error code, const char *msg)
{
	if (cl->dead)
		return;
	if (!cl->stream && !ctl_client_queued(cl))
		ctl_reply(cl, ctl_reply_error(NULL, code, msg));
	ctl_client_kill(cl);
}

/* ---- streamed replies ---- */

static void stream_free(struct ctl_stream *st)
{
	if (!st)
		return;
	ctl_view_unref(st->view);
	free(st);
}

static void stream_item(struct evbuffer *out, struct ctl_stream *st)
{
	json_object *o = ctl_view_item(st->view, st->list, st->pos++);
	const char *s;
	size_t len;

	if (!o)
		return;
	if (st->written++)
		evbuffer_add(out, ",", 1);
	s = ctl_to_line(o, &len);
	evbuffer_add(out, s, len);
	json_object_put(o);
}

/* Items until CTL_STREAM_CHUNK bytes are unsent or the list ends; at the
 * end, the closing brackets and what was held back meanwhile. */
static void stream_step(struct ctl_client *cl)
{
	struct ctl_stream *st = cl->stream;
	struct evbuffer *out = bufferevent_get_output(cl->bev);

	while (st->pos < st->end && evbuffer_get_length(out) < CTL_STREAM_CHUNK)
		stream_item(out, st);
	if (st->pos == st->end) {
		evbuffer_add(out, CTL_STREAM_TAIL, strlen(CTL_STREAM_TAIL));
		stream_free(st);
		cl->stream = NULL;
		evbuffer_add_buffer(out, cl->held);
		bufferevent_setwatermark(cl->bev, EV_WRITE, 0, 0);
	}
	ctl_queued(cl->ctl, evbuffer_get_length(out));
	flush(cl);
}

enum ctl_ret ctl_stream(struct ctl_call *c, const char *key, struct ctl_view *v,
			enum ctl_view_list l, size_t first, size_t end)
{
	struct ctl_client *cl = c->cl;
	struct ctl_stream *st = xcalloc(1, sizeof(*st));
	size_t n = ctl_view_count(v, l), len;
	char *head = ctl_stream_head(c->id, key, &len);

	st->view = v;
	st->list = l;
	st->end = end < n ? end : n;
	st->pos = first < st->end ? first : st->end;
	/* backpressure: nothing is unsent when a request is taken */
	evbuffer_add(bufferevent_get_output(cl->bev), head, len);
	free(head);
	cl->stream = st;
	/* refill at half a chunk, so the socket never runs dry */
	bufferevent_setwatermark(cl->bev, EV_WRITE, CTL_STREAM_CHUNK / 2, 0);
	return CTL_STREAM;
}

/* ---- requests ---- */

enum ctl_ret ctl_fail(struct ctl_call *c, enum ctl_error e, const char *fmt, ...)
{
	va_list ap;

	c->err = e;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return CTL_ERROR;
}

enum ctl_ret ctl_fail_field(struct ctl_call *c, enum ctl_error e, const char *field,
			    const char *fmt, ...)
{
	va_list ap;

	c->err = e;
	snprintf(c->field, sizeof(c->field), "%s", field);
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	return CTL_ERROR;
}

static void run(struct ctl_client *cl, const struct ctl_cmd *cmd, struct ctl_request *rq)
{
	json_object *empty = NULL, *result = NULL;
	struct ctl_call c = { .ctl = cl->ctl, .cl = cl, .sm = cl->ctl->sm, .id = rq->id,
			      .args = rq->args };
	enum ctl_ret r;

	if (!c.args)
		c.args = empty = json_object_new_object();
	r = cmd->fn(&c, &result);
	if (r == CTL_DONE)
		ctl_reply(cl, ctl_reply_result(rq->id, result));
	else if (r == CTL_ERROR)
		ctl_reply(cl, ctl_reply_error_field(rq->id, c.err, c.msg, c.field));
	if (empty)
		json_object_put(empty);
}

static void dispatch(struct ctl_client *cl, struct ctl_request *rq)
{
	const struct ctl_cmd *cmd = ctl_cmd_find(rq->cmd);

	if (!cmd)
		ctl_reply(cl, ctl_reply_error_field(rq->id, CTL_E_unknown_command,
						    "no such command; try \"commands\"", CTL_F_CMD));
	else if (!ctl_access_allowed(cmd->access, cl->admin))
		ctl_reply(cl, ctl_reply_error(rq->id, CTL_E_permission_denied, NULL));
	else if (ctl_check_args(cmd->name, cmd->args, rq->args, rq) < 0)
		ctl_reply(cl, ctl_reply_error_field(rq->id, rq->err, rq->errmsg, rq->field));
	else
		run(cl, cmd, rq);
}

static void handle_line(struct ctl_client *cl, const char *line, size_t len)
{
	struct ctl_request rq;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len)
		return;
	cl->requests++;
	if (ctl_parse_request(line, len, &rq) < 0)
		ctl_reply(cl, ctl_reply_error_field(rq.id, rq.err, rq.errmsg, rq.field));
	else
		dispatch(cl, &rq);
	ctl_request_free(&rq);
}

/* After a too long line: drop input up to its end. True once it is found. */
static bool discard_line(struct ctl_client *cl, struct evbuffer *in)
{
	struct evbuffer_ptr nl = evbuffer_search(in, "\n", 1, NULL);

	if (nl.pos < 0) {
		evbuffer_drain(in, evbuffer_get_length(in));
		return false;
	}
	evbuffer_drain(in, (size_t)nl.pos + 1);
	cl->discarding = false;
	cl->scanned = 0;
	return true;
}

/* The end of the next line, searched for only in input not seen before. */
static ssize_t line_end(struct ctl_client *cl, struct evbuffer *in)
{
	struct evbuffer_ptr from, nl;

	if (evbuffer_ptr_set(in, &from, cl->scanned, EVBUFFER_PTR_SET) < 0)
		return -1;
	nl = evbuffer_search(in, "\n", 1, &from);
	if (nl.pos < 0)
		cl->scanned = evbuffer_get_length(in);
	return nl.pos;
}

/* Handles the next complete request line; false when there is none. The
 * input never holds more than CTL_MAX_REQUEST bytes (the read watermark),
 * so a full buffer without a newline is a line over the limit. */
static bool next_request(struct ctl_client *cl)
{
	struct evbuffer *in = bufferevent_get_input(cl->bev);
	char *line;
	size_t len;

	if (cl->discarding && !discard_line(cl, in))
		return false;
	if (line_end(cl, in) < 0) {
		if (evbuffer_get_length(in) < CTL_MAX_REQUEST)
			return false;
		ctl_reply(cl, ctl_reply_error(NULL, CTL_E_too_large, "request longer than 65536 bytes"));
		cl->discarding = true;
		discard_line(cl, in);
		return true;
	}
	line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF);
	cl->scanned = 0;
	cl->last_active_ms = clock_ms();
	handle_line(cl, line, len);
	free(line);
	return true;
}

/* ---- the work loop ---- */

/* One step of cl's work: a chunk of its stream, or its next request once
 * all output before it has been taken. False when nothing can be done
 * until the client reads or writes. */
static bool work_unit(struct ctl_client *cl)
{
	size_t out = evbuffer_get_length(bufferevent_get_output(cl->bev));

	if (cl->stream) {
		if (out >= CTL_STREAM_CHUNK)
			return false;
		stream_step(cl);
		return true;
	}
	if (out > 0)
		return false;
	return next_request(cl);
}

static void resume_in(struct ctl_client *cl, uint64_t us)
{
	struct timeval tv = { (time_t)(us / 1000000), (suseconds_t)(us % 1000000) };

	event_add(cl->ev_resume, &tv);
}

/* Whether a client without admin rights may work now; if not, it is
 * resumed when the shared credit is positive again. A sweep waits for
 * the fabric between two pumps of the loop: whatever runs in between
 * delays it, so while one runs the share is smaller. */
static bool share_ready(struct ctl_client *cl, uint64_t now)
{
	struct ctl_share *s = &cl->ctl->share;
	int64_t pct = cl->ctl->sm->sweeping ? CTL_CLIENT_SHARE_SWEEP : CTL_CLIENT_SHARE;

	/* in hundredths of a microsecond: a refill of pct per microsecond is
	 * never rounded away, however often this runs */
	s->credit += (int64_t)(now - s->at_us) * pct;
	s->at_us = now;
	if (s->credit > SHARE_BURST_US * 100)
		s->credit = SHARE_BURST_US * 100;
	if (s->credit > 0)
		return true;
	resume_in(cl, (uint64_t)(-s->credit / pct) + 1);
	return false;
}

/* Reading is on only while a request could be taken now. Otherwise the
 * input waits (the kernel holds what does not fit), and must: libevent
 * (2.1.12) calls the read callback again and again, deferred, while a
 * reading bufferevent's input stays at its high watermark, which made a
 * blocked client spin the loop. */
static void read_gate(struct ctl_client *cl)
{
	bool want = !cl->dead && !cl->stream && !evtimer_pending(cl->ev_resume, NULL) &&
		    !evbuffer_get_length(bufferevent_get_output(cl->bev));
	bool on = bufferevent_get_enabled(cl->bev) & EV_READ;

	if (want && !on)
		bufferevent_enable(cl->bev, EV_READ);
	else if (!want && on)
		bufferevent_disable(cl->bev, EV_READ);
}

static void client_work(struct ctl_client *cl)
{
	int i;

	for (i = 0; i < CTL_TURN_UNITS && !cl->dead; i++) {
		uint64_t t0 = clock_us();

		if (!cl->admin && !share_ready(cl, t0))
			break;
		if (!work_unit(cl))
			break;
		if (!cl->admin)
			cl->ctl->share.credit -= (int64_t)(clock_us() - t0) * 100;
	}
	if (i == CTL_TURN_UNITS && !cl->dead)
		resume_in(cl, 0);
	read_gate(cl);
}

static void on_resume(evutil_socket_t fd, short what, void *arg)
{
	client_work(arg);
}

static void on_read(struct bufferevent *bev, void *arg)
{
	client_work(arg);
}

/* The client took output: room for the next request or chunk. */
static void on_write(struct bufferevent *bev, void *arg)
{
	struct ctl_client *cl = arg;

	cl->last_active_ms = clock_ms();
	client_work(cl);
}

static void on_bev_event(struct bufferevent *bev, short what, void *arg)
{
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		ctl_client_kill(arg);
}

/* ---- lifetime ---- */

void ctl_client_kill(struct ctl_client *cl)
{
	if (cl->dead)
		return;
	cl->dead = true;
	bufferevent_disable(cl->bev, EV_READ | EV_WRITE);
	event_del(cl->ev_resume);
	event_active(cl->ctl->ev_reap, EV_TIMEOUT, 0);
}

void ctl_client_free(struct ctl_client *cl)
{
	struct ctl *ctl = cl->ctl;

	if (cl->prev)
		cl->prev->next = cl->next;
	else
		ctl->clients = cl->next;
	if (cl->next)
		cl->next->prev = cl->prev;
	ctl->nclients--;
	for (size_t i = 0; i < cl->nwaits; i++)
		json_object_put(cl->waits[i].id);
	free(cl->waits);
	stream_free(cl->stream);
	evbuffer_free(cl->held);
	event_free(cl->ev_resume);
	bufferevent_free(cl->bev);
	free(cl);
}

/* The kernel queues up to SO_SNDBUF (doubled by Linux) for a client that
 * does not read: its default, 208 KiB, is 17 "nodes" replies of a
 * 90-node fabric made for nobody. A chunk of a stream is enough. */
static void small_sndbuf(int fd)
{
	int size = CTL_STREAM_CHUNK;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) < 0)
		log_debug("control: SO_SNDBUF: %s", strerror(errno));
}

void ctl_client_new(struct ctl *ctl, int fd, const struct ctl_peer *peer, bool admin)
{
	struct ctl_client *cl = xcalloc(1, sizeof(*cl));

	small_sndbuf(fd);
	cl->ctl = ctl;
	cl->peer = *peer;
	cl->admin = admin;
	cl->last_active_ms = clock_ms();
	cl->bev = bufferevent_socket_new(ctl->sm->base, fd, BEV_OPT_CLOSE_ON_FREE);
	cl->held = evbuffer_new();
	cl->ev_resume = evtimer_new(ctl->sm->base, on_resume, cl);
	if (!cl->bev || !cl->held || !cl->ev_resume)
		fatalx("cannot allocate a control client");
	bufferevent_setcb(cl->bev, on_read, on_write, on_bev_event, cl);
	bufferevent_setwatermark(cl->bev, EV_READ, 0, CTL_MAX_REQUEST);
	bufferevent_enable(cl->bev, EV_READ | EV_WRITE);
	cl->next = ctl->clients;
	if (cl->next)
		cl->next->prev = cl;
	ctl->clients = cl;
	ctl->nclients++;
	log_debug("control: client pid %d uid %d%s", (int)cl->peer.pid, (int)cl->peer.uid,
		  cl->admin ? " (admin)" : "");
	ctl_reply(cl, ctl_hello_new(PACKAGE_VERSION, cl->admin));
}

bool ctl_client_idle(const struct ctl_client *cl, uint64_t now_ms, uint64_t timeout_ms)
{
	return !cl->dead && !cl->subscribed && !cl->nwaits && now_ms - cl->last_active_ms >= timeout_ms;
}

void ctl_subscribe(struct ctl_client *cl)
{
	cl->subscribed = true;
}

int ctl_wait_sweep(struct ctl_call *c, uint64_t sweep)
{
	struct ctl_client *cl = c->cl;

	if (cl->nwaits == CTL_MAX_WAITS) {
		ctl_fail(c, CTL_E_busy, "%d requests on this connection wait for a sweep already",
			 CTL_MAX_WAITS);
		return -1;
	}
	if (cl->nwaits == cl->capwaits) {
		cl->capwaits = cl->capwaits ? 2 * cl->capwaits : 4;
		cl->waits = xrealloc(cl->waits, cl->capwaits * sizeof(*cl->waits));
	}
	cl->waits[cl->nwaits].id = c->id ? json_object_get(c->id) : NULL;
	cl->waits[cl->nwaits++].sweep = sweep;
	return 0;
}

/* ---- the memory of all clients ---- */

/* Views held by streams (and the shared one), each counted once. */
static size_t views_bytes(struct ctl *ctl)
{
	unsigned epoch = ++ctl->view_epoch;
	size_t total = 0;

	if (ctl->view && ctl_view_mark(ctl->view, epoch))
		total += ctl_view_bytes(ctl->view);
	for (struct ctl_client *cl = ctl->clients; cl; cl = cl->next)
		if (!cl->dead && cl->stream && ctl_view_mark(cl->stream->view, epoch))
			total += ctl_view_bytes(cl->stream->view);
	return total;
}

/* The client with the most unsent bytes; *total gets everything queued. */
static struct ctl_client *slowest(struct ctl *ctl, size_t *total)
{
	struct ctl_client *worst = NULL;
	size_t most = 0;

	*total = views_bytes(ctl);
	for (struct ctl_client *cl = ctl->clients; cl; cl = cl->next) {
		size_t q = cl->dead ? 0 : ctl_client_queued(cl);

		*total += q;
		if (q > most) {
			most = q;
			worst = cl;
		}
	}
	return worst;
}

void ctl_budget_check(struct ctl *ctl)
{
	struct ctl_client *cl;
	size_t total;

	ctl->queued_since = 0;
	while ((cl = slowest(ctl, &total))) {
		if (total > ctl->queued_peak)
			ctl->queued_peak = total;
		if (total <= CTL_MAX_QUEUED)
			return;
		ctl_ratelog(&ctl->drops, LOG_LVL_WARNING,
			    "control client pid %d uid %d: dropped with %zu bytes unread, "
			    "%zu queued for all clients (limit %u)", (int)cl->peer.pid,
			    (int)cl->peer.uid, ctl_client_queued(cl), total, CTL_MAX_QUEUED);
		ctl_client_kill(cl);
	}
}

/* What was queued since the last exact count only ever overstates what
 * is queued now (clients take output without telling us), so the count
 * over all clients runs only once that could pass the limit, and from the
 * tick; not for every message to every one of 1000 clients. */
void ctl_queued(struct ctl *ctl, size_t bytes)
{
	ctl->queued_since += bytes;
	if (ctl->queued_since > CTL_MAX_QUEUED / 8)
		event_active(ctl->ev_budget, EV_TIMEOUT, 0);
}

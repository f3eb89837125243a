/*
 * DOC: logging to stderr with journald priority prefixes, and x-wrappers.
 *
 * The daemon is single-threaded, so the state here is plain statics.
 * Call sites are told apart by their format string's address, in an
 * open-addressing table of LOG_SITES; a daemon has fewer format strings
 * than that, and should the table fill, the rest share one site.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sm/log.h"

/* Fabric-caused messages: a burst of 50, then 10 per second. */
#define FABRIC_BURST 50.0
#define FABRIC_RATE 10.0

#define LOG_SITES 1024

struct bucket {
	double tokens, stamp;
	bool started;
};

struct site {
	const char *fmt;      /* NULL: a free slot */
	struct bucket b;
	uint64_t dropped;     /* since the last flush */
};

static int cur_level = LOG_LVL_INFO;
static int use_prefix = 1;
static struct bucket fabric;
static uint64_t suppressed;
static FILE *out;
static double (*clock_fn)(void);
static struct site sites[LOG_SITES], overflow;
static struct bucket all;
static uint64_t all_dropped, dropped_total;

static const char *const level_names[] = {
	[LOG_LVL_ERR] = "err",       [LOG_LVL_WARNING] = "warning",
	[LOG_LVL_NOTICE] = "notice", [LOG_LVL_INFO] = "info",
	[LOG_LVL_DEBUG] = "debug",
};

void log_init(int level, int journal_prefix)
{
	cur_level = level;
	use_prefix = journal_prefix;
}

void log_set_level(int level)
{
	cur_level = level;
}

int log_get_level(void)
{
	return cur_level;
}

int log_level_from_name(const char *name)
{
	for (int i = LOG_LVL_ERR; i <= LOG_LVL_DEBUG; i++)
		if (strcasecmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

const char *log_level_name(int level)
{
	if (level < LOG_LVL_ERR || level > LOG_LVL_DEBUG)
		return "unknown";
	return level_names[level];
}

static void vlog(int level, const char *fmt, va_list ap, const char *errstr)
	__attribute__((format(printf, 2, 0)));

static FILE *stream(void)
{
	return out ? out : stderr;
}

static double now_s(void)
{
	struct timespec ts;

	if (clock_fn)
		return clock_fn();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A token from b (burst, rate a second), if it has one. */
static bool take(struct bucket *b, double burst, double rate, double t)
{
	if (!b->started) {
		b->started = true;
		b->tokens = burst;
	} else if (t > b->stamp) {
		b->tokens += (t - b->stamp) * rate;
	}
	b->stamp = t;
	if (b->tokens > burst)
		b->tokens = burst;
	if (b->tokens < 1.0)
		return false;
	b->tokens -= 1.0;
	return true;
}

static struct site *site_of(const char *fmt)
{
	size_t h = (size_t)(((uintptr_t)fmt * 0x9e3779b97f4a7c15ULL) >> 40) % LOG_SITES;

	for (size_t k = 0; k < LOG_SITES; k++, h = (h + 1) % LOG_SITES) {
		if (sites[h].fmt == fmt)
			return &sites[h];
		if (!sites[h].fmt) {
			sites[h].fmt = fmt;
			return &sites[h];
		}
	}
	return &overflow;
}

/* May a line of this format go out now? Counts it when not. */
static bool admit(int level, const char *fmt)
{
	struct site *s;
	double t;

	if (level >= LOG_LVL_DEBUG)
		return true;
	t = now_s();
	s = site_of(fmt);
	if (!take(&s->b, LOG_SITE_BURST, LOG_SITE_RATE, t)) {
		s->dropped++;
		dropped_total++;
		return false;
	}
	if (!take(&all, LOG_ALL_BURST, LOG_ALL_RATE, t)) {
		all_dropped++;
		dropped_total++;
		return false;
	}
	return true;
}

static void vlog(int level, const char *fmt, va_list ap, const char *errstr)
{
	FILE *f = stream();

	if (level > cur_level || !admit(level, fmt))
		return;
	if (use_prefix)
		fprintf(f, "<%d>", level);
	vfprintf(f, fmt, ap);
	if (errstr)
		fprintf(f, ": %s", errstr);
	fputc('\n', f);
}

uint64_t log_suppressed(void)
{
	return dropped_total;
}

static void summary(uint64_t n, const char *fmt)
{
	FILE *f = stream();

	if (use_prefix)
		fprintf(f, "<%d>", LOG_LVL_NOTICE);
	if (fmt)
		fprintf(f, "log: %llu more lines like \"%.80s\" left out (more than %.0f a second)\n",
			(unsigned long long)n, fmt, LOG_SITE_RATE);
	else
		fprintf(f, "log: %llu more lines left out (the log took more than %.0f a second)\n",
			(unsigned long long)n, LOG_ALL_RATE);
}

void log_flush_suppressed(void)
{
	for (size_t i = 0; i < LOG_SITES; i++)
		if (sites[i].dropped) {
			summary(sites[i].dropped, sites[i].fmt);
			sites[i].dropped = 0;
		}
	if (overflow.dropped)
		summary(overflow.dropped, "(other lines)");
	if (all_dropped)
		summary(all_dropped, NULL);
	overflow.dropped = all_dropped = 0;
}

void log_set_output(FILE *f)
{
	out = f;
}

void log_set_clock(double (*now)(void))
{
	clock_fn = now;
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap, NULL);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	const char *e = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_WARNING, fmt, ap, e);
	va_end(ap);
}

#define LOG_FN(name, lvl)                          \
	void name(const char *fmt, ...)            \
	{                                          \
		va_list ap;                        \
		va_start(ap, fmt);                 \
		vlog(lvl, fmt, ap, NULL);          \
		va_end(ap);                        \
	}

LOG_FN(log_warnx, LOG_LVL_WARNING)
LOG_FN(log_notice, LOG_LVL_NOTICE)
LOG_FN(log_info, LOG_LVL_INFO)
LOG_FN(log_debug, LOG_LVL_DEBUG)

void log_fabric(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > cur_level)
		return;
	if (!take(&fabric, FABRIC_BURST, FABRIC_RATE, now_s())) {
		suppressed++;
		return;
	}
	va_start(ap, fmt);
	vlog(level, fmt, ap, NULL);
	va_end(ap);
}

uint64_t log_fabric_suppressed(void)
{
	return suppressed;
}

void fatal(const char *fmt, ...)
{
	const char *e = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_ERR, fmt, ap, e);
	va_end(ap);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_ERR, fmt, ap, NULL);
	va_end(ap);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		fatalx("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fatalx("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		fatalx("out of memory (%zu bytes)", n);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		fatalx("out of memory");
	return p;
}

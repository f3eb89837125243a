/*
 * DOC: logging to stderr with journald priority prefixes, and x-wrappers.
 *
 * The daemon is single-threaded, so the state here is plain statics.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lib/clock.h"
#include "lib/log.h"

/* Fabric-caused messages: a burst of 50, then 10 per second. */
#define FABRIC_BURST 50.0
#define FABRIC_RATE 10.0

static int cur_level = LOG_LVL_INFO;
static int use_prefix = 1;
static double bucket = FABRIC_BURST;
static double bucket_stamp;
static uint64_t suppressed;

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

static void vlog(int level, const char *fmt, va_list ap, const char *errstr)
{
	if (level > cur_level)
		return;
	if (use_prefix)
		fprintf(stderr, "<%d>", level);
	vfprintf(stderr, fmt, ap);
	if (errstr)
		fprintf(stderr, ": %s", errstr);
	fputc('\n', stderr);
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

static double now_s(void)
{
	return (double)clock_us() / 1e6;
}

static int fabric_token(void)
{
	double t = now_s();

	bucket += (t - bucket_stamp) * FABRIC_RATE;
	bucket_stamp = t;
	if (bucket > FABRIC_BURST)
		bucket = FABRIC_BURST;
	if (bucket < 1.0)
		return 0;
	bucket -= 1.0;
	return 1;
}

void log_fabric(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > cur_level)
		return;
	if (!fabric_token()) {
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

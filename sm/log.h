/*
 * DOC: logging.
 *
 * A tiny API in the style of bgpd's log.h: log_warn appends strerror(errno),
 * log_warnx does not. Lines go to stderr with journald's "<N>" priority
 * prefix (sd-daemon(3)), so under systemd the journal keeps the level.
 * Messages caused by the fabric (a node answering garbage, a timeout) use
 * log_fabric(), which is rate-limited by a token bucket so a misbehaving
 * fabric cannot flood the journal.
 *
 * Every line at levels err to info is rate-limited too, whatever sends
 * it: by its call site (its format string: LOG_SITE_BURST lines, then
 * LOG_SITE_RATE a second) and by the log as a whole (LOG_ALL_BURST, then
 * LOG_ALL_RATE a second), so that no host can make the log grow faster
 * than that, however many requests it sends. What is left out is counted;
 * log_flush_suppressed() (the daemon calls it every few seconds and at
 * exit) writes one line per call site with the count. Debug lines, which
 * an operator asks for, are not limited.
 */
#ifndef IBSM_SM_LOG_H
#define IBSM_SM_LOG_H

#include <stdint.h>
#include <stdio.h>

enum log_level {
	LOG_LVL_ERR = 3,
	LOG_LVL_WARNING = 4,
	LOG_LVL_NOTICE = 5,
	LOG_LVL_INFO = 6,
	LOG_LVL_DEBUG = 7,
};

#define LOG_PRINTF(a, b) __attribute__((format(printf, a, b)))

void log_init(int level, int journal_prefix);
void log_set_level(int level);
int log_get_level(void);
int log_level_from_name(const char *name);
const char *log_level_name(int level);

void log_msg(int level, const char *fmt, ...) LOG_PRINTF(2, 3);
void log_warn(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_warnx(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_notice(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_info(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_debug(const char *fmt, ...) LOG_PRINTF(1, 2);
/* Rate-limited; for messages whose cause is outside the daemon. */
void log_fabric(int level, const char *fmt, ...) LOG_PRINTF(2, 3);
/* Messages suppressed by the rate limit so far. */
uint64_t log_fabric_suppressed(void);

#define LOG_SITE_BURST 100
#define LOG_SITE_RATE 5.0
#define LOG_ALL_BURST 2000
#define LOG_ALL_RATE 100.0
/* Lines left out by the limits since the start, all call sites. */
uint64_t log_suppressed(void);
/* One line per call site whose lines were left out since the last call:
 * how many, and the line's format. */
void log_flush_suppressed(void);
/* Tests: where lines go (NULL: stderr) and the clock (NULL: monotonic, s). */
void log_set_output(FILE *f);
void log_set_clock(double (*now)(void));
__attribute__((noreturn)) void fatal(const char *fmt, ...) LOG_PRINTF(1, 2);
__attribute__((noreturn)) void fatalx(const char *fmt, ...) LOG_PRINTF(1, 2);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif

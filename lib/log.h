/*
 * DOC: logging.
 *
 * A tiny API in the style of bgpd's log.h: log_warn appends strerror(errno),
 * log_warnx does not. Lines go to stderr with journald's "<N>" priority
 * prefix (sd-daemon(3)), so under systemd the journal keeps the level.
 * Messages caused by the fabric (a node answering garbage, a timeout) use
 * log_fabric(), which is rate-limited by a token bucket so a misbehaving
 * fabric cannot flood the journal.
 */
#ifndef IBSM_LIB_LOG_H
#define IBSM_LIB_LOG_H

#include <stdint.h>

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
__attribute__((noreturn)) void fatal(const char *fmt, ...) LOG_PRINTF(1, 2);
__attribute__((noreturn)) void fatalx(const char *fmt, ...) LOG_PRINTF(1, 2);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif

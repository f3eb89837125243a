/*
 * DOC: crash-safe file replacement for the state directory, and making
 * the directories the daemon needs.
 *
 * The content goes to PATH.tmp, is flushed and fsync'ed, renamed over PATH,
 * and the directory is fsync'ed: after kill -9 or a power cut at any moment
 * PATH holds either the old or the new content, never a mix.
 */
#ifndef IBSM_LIB_ATOMICFILE_H
#define IBSM_LIB_ATOMICFILE_H

#include <stddef.h>
#include <stdio.h>

/* fill writes the content; it returns 0 or -1. 0, or -1 with err set. */
int atomic_write(const char *path, int (*fill)(FILE *f, const void *arg), const void *arg,
		 char *err, size_t errlen);

/* Makes directory path, and missing parents (0755), with the given mode
 * for the last component; an existing directory is left as it is. 0, or
 * -1 with err set ("cannot create DIR: reason", or "DIR is not a
 * directory"). */
int make_dirs(const char *path, unsigned mode, char *err, size_t errlen);

#endif

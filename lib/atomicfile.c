/*
 * DOC: crash-safe file replacement (see atomicfile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomicfile.h"
#include "lib/log.h"

static int fsync_dir(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int fd, rc;

	if (slash)
		*slash = '\0';
	fd = open(slash ? (*dir ? dir : "/") : ".", O_RDONLY | O_DIRECTORY);
	free(dir);
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

static int write_tmp(const char *tmp, int (*fill)(FILE *, const void *), const void *arg)
{
	FILE *f = fopen(tmp, "w");
	int rc;

	if (!f)
		return -1;
	rc = fill(f, arg);
	if (rc == 0 && (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0))
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

int atomic_write(const char *path, int (*fill)(FILE *f, const void *arg), const void *arg,
		 char *err, size_t errlen)
{
	size_t tlen = strlen(path) + 5;
	char *tmp = xmalloc(tlen);
	int rc;

	snprintf(tmp, tlen, "%s.tmp", path);
	errno = 0;
	rc = write_tmp(tmp, fill, arg);
	if (rc == 0)
		rc = rename(tmp, path);
	if (rc == 0)
		rc = fsync_dir(path);
	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", path, errno ? strerror(errno) : "write failed");
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

static int make_one(const char *path, mode_t mode)
{
	struct stat st;

	if (mkdir(path, mode) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

int make_dirs(const char *path, unsigned mode, char *err, size_t errlen)
{
	char *dir = xstrdup(path);
	int rc = 0;

	for (char *s = strchr(dir + 1, '/'); s && rc == 0; s = strchr(s + 1, '/')) {
		*s = '\0';
		rc = make_one(dir, 0755);
		*s = '/';
	}
	if (rc == 0)
		rc = make_one(dir, (mode_t)mode);
	if (rc < 0)
		snprintf(err, errlen, "cannot create directory %s: %s", path, strerror(errno));
	free(dir);
	return rc;
}

/*
 * DOC: the persistent GUID -> LID database (format in lids.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibsm/topo.h"
#include "sm/atomic.h"
#include "sm/lids.h"
#include "sm/log.h"

#define LIDS_MAGIC "ibsmd-lids 2"
#define LIDS_MAGIC_V1 "ibsmd-lids 1"
#define SEEN_REFRESH_S 3600
#define LIDS_MAX_FILE (64u << 20)

void lid_db_init(struct lid_db *db)
{
	memset(db, 0, sizeof(*db));
	db->size = 1024;
	db->tab = xcalloc(db->size, sizeof(*db->tab));
}

void lid_db_free(struct lid_db *db)
{
	free(db->tab);
	free(db->path);
	memset(db, 0, sizeof(*db));
}

static size_t slot(const struct lid_db *db, uint64_t guid)
{
	uint64_t h = guid * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 20) & (db->size - 1);

	while (db->tab[i].used && db->tab[i].guid != guid)
		i = (i + 1) & (db->size - 1);
	return i;
}

static void grow(struct lid_db *db)
{
	struct lid_entry *old = db->tab;
	size_t n = db->size;

	db->size *= 2;
	db->tab = xcalloc(db->size, sizeof(*db->tab));
	for (size_t i = 0; i < n; i++)
		if (old[i].used)
			db->tab[slot(db, old[i].guid)] = old[i];
	free(old);
}

const struct lid_entry *lid_db_get(const struct lid_db *db, uint64_t guid)
{
	const struct lid_entry *e = &db->tab[slot(db, guid)];

	return e->used ? e : NULL;
}

void lid_db_set(struct lid_db *db, uint64_t guid, uint16_t lid, uint8_t lmc, uint64_t seen)
{
	struct lid_entry *e;

	if (db->count * 2 >= db->size)
		grow(db);
	e = &db->tab[slot(db, guid)];
	if (e->used && e->lid == lid && e->lmc == lmc && seen < e->seen + SEEN_REFRESH_S)
		return;
	if (!e->used)
		db->count++;
	e->used = true;
	e->guid = guid;
	e->lid = lid;
	e->lmc = lmc;
	if (seen > e->seen)
		e->seen = seen;
	db->dirty = true;
}

/* Open addressing with linear probing: re-place the cluster after a hole. */
void lid_db_del(struct lid_db *db, uint64_t guid)
{
	size_t i = slot(db, guid), j = i;

	if (!db->tab[i].used)
		return;
	db->tab[i].used = false;
	db->count--;
	db->dirty = true;
	for (j = (j + 1) & (db->size - 1); db->tab[j].used; j = (j + 1) & (db->size - 1)) {
		struct lid_entry e = db->tab[j];

		db->tab[j].used = false;
		db->tab[slot(db, e.guid)] = e;
	}
}

void lid_db_each(const struct lid_db *db, void (*fn)(void *arg, const struct lid_entry *e),
		 void *arg)
{
	for (size_t i = 0; i < db->size; i++)
		if (db->tab[i].used)
			fn(arg, &db->tab[i]);
}

static int parse_line(const char *line, int version, uint64_t *guid, unsigned *lid, unsigned *lmc,
		      uint64_t *seen)
{
	char extra;

	*seen = 0;
	if (version == 1 && sscanf(line, "%" SCNx64 " %u %u %c", guid, lid, lmc, &extra) != 3)
		return -1;
	if (version == 2 && sscanf(line, "%" SCNx64 " %u %u %" SCNu64 " %c", guid, lid, lmc, seen,
				   &extra) != 4)
		return -1;
	if (strncmp(line, "0x", 2) != 0 || *guid == 0)
		return -1;
	if (*lid == 0 || *lid > TOPO_MAX_UCAST_LID || *lmc > 7)
		return -1;
	if (*lid + (1u << *lmc) - 1 > TOPO_MAX_UCAST_LID)
		return -1;
	return 0;
}

/* Overlapping ranges mean two ports would answer to one LID. */
static int check_overlaps(const struct lid_db *db, const char *name, char *err, size_t errlen)
{
	uint8_t *used = xcalloc(TOPO_MAX_UCAST_LID + 1, 1);
	int rc = 0;

	for (size_t i = 0; i < db->size && !rc; i++) {
		const struct lid_entry *e = &db->tab[i];

		for (unsigned l = e->lid; e->used && l < e->lid + (1u << e->lmc); l++) {
			if (used[l]) {
				snprintf(err, errlen, "%s: LID %u assigned twice", name, l);
				rc = -1;
				break;
			}
			used[l] = 1;
		}
	}
	free(used);
	return rc;
}

static int parse_body(struct lid_db *db, const char *name, int version, char *text, char *err,
		      size_t errlen)
{
	unsigned lineno = 1;
	char *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		uint64_t guid, seen;
		unsigned lid, lmc;

		lineno++;
		l += strspn(l, " \t");
		if (*l == '#' || *l == '\0')
			continue;
		if (parse_line(l, version, &guid, &lid, &lmc, &seen) < 0) {
			snprintf(err, errlen, "%s:%u: expected \"0xGUID LID LMC%s\"", name, lineno,
				 version == 2 ? " LAST-SEEN" : "");
			return -1;
		}
		if (lid_db_get(db, guid)) {
			snprintf(err, errlen, "%s:%u: GUID 0x%016" PRIx64 " listed twice", name, lineno, guid);
			return -1;
		}
		lid_db_set(db, guid, (uint16_t)lid, (uint8_t)lmc, seen);
	}
	return check_overlaps(db, name, err, errlen);
}

int lid_db_parse(struct lid_db *db, const char *name, const char *buf, size_t len,
		 char *err, size_t errlen)
{
	size_t mlen = strlen(LIDS_MAGIC);
	int version = 2;
	char *text;
	int rc;

	if (len >= mlen && memcmp(buf, LIDS_MAGIC_V1, mlen) == 0)
		version = 1;
	else if (len < mlen || memcmp(buf, LIDS_MAGIC, mlen) != 0)
		version = 0;
	if (!version || (len > mlen && buf[mlen] != '\n')) {
		snprintf(err, errlen, "%s:1: not an ibsmd LID file (expected \"%s\")", name, LIDS_MAGIC);
		return -1;
	}
	if (memchr(buf, '\0', len)) {
		snprintf(err, errlen, "%s: contains a NUL byte", name);
		return -1;
	}
	text = xmalloc(len - mlen + 1);
	memcpy(text, buf + mlen, len - mlen);
	text[len - mlen] = '\0';
	rc = parse_body(db, name, version, text, err, errlen);
	free(text);
	db->dirty = false;
	return rc;
}

static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = xmalloc(LIDS_MAX_FILE + 1);
	*len = fread(buf, 1, LIDS_MAX_FILE + 1, f);
	if (ferror(f) || *len > LIDS_MAX_FILE) {
		snprintf(err, errlen, "%s: %s", path, ferror(f) ? "read error" : "file too large");
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int lid_db_load(struct lid_db *db, const char *dir, char *err, size_t errlen)
{
	size_t plen = strlen(dir) + 6, len;
	char *buf;
	int rc;

	free(db->path);
	db->path = xmalloc(plen);
	snprintf(db->path, plen, "%s/lids", dir);
	if (access(db->path, F_OK) != 0 && errno == ENOENT)
		return 0;
	buf = read_file(db->path, &len, err, errlen);
	if (!buf)
		return -1;
	rc = lid_db_parse(db, db->path, buf, len, err, errlen);
	free(buf);
	return rc;
}

static int write_entries(FILE *f, const void *arg)
{
	const struct lid_db *db = arg;

	fprintf(f, "%s\n# port-guid base-lid lmc last-seen\n", LIDS_MAGIC);
	for (size_t i = 0; i < db->size; i++) {
		const struct lid_entry *e = &db->tab[i];

		if (e->used)
			fprintf(f, "0x%016" PRIx64 " %u %u %" PRIu64 "\n", e->guid, e->lid, e->lmc,
				e->seen);
	}
	return ferror(f) ? -1 : 0;
}

char *lid_db_content(struct lid_db *db, size_t *len)
{
	char *buf = NULL;
	FILE *f;

	if (!db->dirty)
		return NULL;
	f = open_memstream(&buf, len);
	if (!f || write_entries(f, db) < 0 || fclose(f) != 0) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	db->dirty = false;
	return buf;
}

int lid_db_save(struct lid_db *db, char *err, size_t errlen)
{
	if (!db->dirty)
		return 0;
	if (atomic_write(db->path, write_entries, db, err, errlen) < 0)
		return -1;
	db->dirty = false;
	return 0;
}

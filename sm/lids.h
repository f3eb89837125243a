/*
 * DOC: the persistent GUID -> LID database.
 *
 * File `lids` in the state directory, text, one port per line:
 *
 *     ibsmd-lids 2
 *     # port-guid          base-lid  lmc  last-seen
 *     0x0002c90300a1b2c3   12        0    1795000000
 *
 * The first line names the format and its version. LIDs are decimal,
 * 1..49151 (0xBFFF); lmc 0..7; last-seen is when a sweep last found the
 * port (Unix seconds, refreshed at most hourly); a GUID appears once and
 * LID ranges do not overlap. A reservation stays while its port is away
 * (a node that does not answer, a host powered off), like OpenSM's
 * guid2lid; only when the LID space runs short are the oldest released.
 * Format 1 (no last-seen column, read as 0) is still read. Anything else makes the file corrupt: ibsmd refuses to start and
 * never overwrites it (--fresh-state starts from an empty database and
 * replaces the file). Every change is written atomically: temporary file,
 * fsync, rename, fsync of the directory, so kill -9 at any moment leaves
 * either the old or the new file.
 */
#ifndef IBSM_SM_LIDS_H
#define IBSM_SM_LIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lid_entry {
	uint64_t guid;
	uint64_t seen;   /* last-seen, Unix seconds; 0 unknown */
	uint16_t lid;
	uint8_t lmc;
	bool used;
};

struct lid_db {
	struct lid_entry *tab;   /* open addressing, size a power of two */
	size_t size, count;
	bool dirty;
	char *path;
};

void lid_db_init(struct lid_db *db);
void lid_db_free(struct lid_db *db);
/* Load dir/lids. A missing file is an empty database; an unreadable or
 * corrupt one is -1 with the reason (file:line) in err. */
int lid_db_load(struct lid_db *db, const char *dir, char *err, size_t errlen);
/* Parse file contents (pure, for tests and the fuzzer). */
int lid_db_parse(struct lid_db *db, const char *name, const char *buf, size_t len,
		 char *err, size_t errlen);
/* Write the database if it changed. 0 or -1 with the reason in err. */
int lid_db_save(struct lid_db *db, char *err, size_t errlen);
/* The file's content, for a save off the loop (sm/lidmgr.c), marking the
 * database saved; NULL when it did not change (or out of memory: then it
 * stays changed). The caller frees it, and marks the database changed
 * again (lid_db_touch) if the write fails. */
char *lid_db_content(struct lid_db *db, size_t *len);
static inline void lid_db_touch(struct lid_db *db)
{
	db->dirty = true;
}
const struct lid_entry *lid_db_get(const struct lid_db *db, uint64_t guid);
/* Sets guid's range; seen refreshes last-seen (kept if older by less than
 * an hour, so a steady fabric does not rewrite the file every sweep). */
void lid_db_set(struct lid_db *db, uint64_t guid, uint16_t lid, uint8_t lmc, uint64_t seen);
/* Forgets guid (its LIDs may be handed out again). */
void lid_db_del(struct lid_db *db, uint64_t guid);
/* Calls fn for every entry (order unspecified); fn must not change db. */
void lid_db_each(const struct lid_db *db, void (*fn)(void *arg, const struct lid_entry *e),
		 void *arg);

#endif

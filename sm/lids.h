/*
 * DOC: the persistent GUID -> LID database.
 *
 * File `lids` in the state directory, text, one port per line:
 *
 *     ibsmd-lids 1
 *     # port-guid          base-lid  lmc
 *     0x0002c90300a1b2c3   12        0
 *
 * The first line names the format and its version. LIDs are decimal,
 * 1..49151 (0xBFFF); lmc 0..7; a GUID appears once and LID ranges do not
 * overlap. Anything else makes the file corrupt: ibsmd refuses to start and
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
const struct lid_entry *lid_db_get(const struct lid_db *db, uint64_t guid);
void lid_db_set(struct lid_db *db, uint64_t guid, uint16_t lid, uint8_t lmc);

#endif

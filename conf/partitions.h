/*
 * DOC: the partitions file (OpenSM partitions.conf syntax) and a resolver.
 *
 * part_parse_buf() reads statements
 *
 *     Name[=PKey][,flag[=value]]... : member, member, ... ;
 *
 * into a struct part_config: plain data with owned arrays, nothing that
 * knows about the fabric. part_port_membership() and part_port_pkeys()
 * then say, for one port, which partitions it is in and which P_Keys go
 * into its P_KeyTable. Reloading is the caller's: parse into a fresh
 * struct, keep the old one unless the parse returned 0 errors.
 *
 * Grammar and meaning follow OpenSM's doc/partition-config.txt and its
 * parser osm_prtn_config.c; where we differ it is said here.
 *
 * Layout: '#' starts a comment. Blanks and newlines may go anywhere
 * around '=' ',' ':' ';'. In the member list a newline also separates
 * two entries (OpenSM reads that list line by line, and its own example
 * puts mgid lines one per line without commas). Empty entries are
 * skipped. Names, flags and keywords are compared without case.
 *
 * Header:
 *  - Name: printable ASCII without '=' ',' ':' ';' '#', blanks inside kept
 *    as one space, at most PART_MAX_NAME bytes, only used in messages. A
 *    lone name starting with a digit is a P_Key (OpenSM does the same).
 *  - PKey: 0x hex or decimal. Bit 15 is ignored (0xffff is 0x7fff); 0x0000
 *    and 0x8000 are invalid.
 *  - Statements with the same P_Key are one partition (first name wins,
 *    a different name is a warning). A statement without P_Key joins the
 *    earlier partition of the same name, as in OpenSM; otherwise it gets
 *    a generated P_Key: after the whole file is read, such partitions in
 *    file order take the lowest values from 0x0001 up that no statement
 *    of the file uses. (OpenSM counts up the same way but only skips the
 *    P_Keys seen so far, so a later explicit P_Key can merge with it.)
 *  - One name with two P_Keys is an error (OpenSM allows it).
 *  - Flags (table in partitions.c): ipoib, indx0, defmember=full|limited|
 *    both, and the multicast group parameters mtu=1..5, rate=2..24,
 *    sl=0..15, scope=1..15 (repeatable: one group per scope), Q_Key= (or
 *    qkey=) 32 bits, TClass= 8 bits, FlowLabel= 20 bits. Numbers are 0x
 *    hex or decimal; a leading 0 is an error because OpenSM reads it as
 *    octal. Unknown flags are errors (OpenSM ignores them: a misspelt
 *    ipoib would silently drop the broadcast group).
 *  - defmember and indx0 apply to the members of their own statement
 *    only, as in OpenSM. The other flags belong to the partition; two
 *    statements giving one parameter different values is an error.
 *
 * Member list:
 *  - Entries are ALL, ALL_CAS, ALL_SWITCHES (switch port 0), ALL_ROUTERS,
 *    SELF (the SM's port), NONE (nothing) or a port GUID (0x hex or
 *    decimal, not 0), each optionally =full, =limited or =both. Without
 *    one the statement's defmember applies (default limited).
 *  - Any unambiguous prefix of full/limited/both is taken (OpenSM's own
 *    example writes "limi"). Anything else means limited, as in OpenSM,
 *    and is reported as a warning.
 *  - For one port and one partition the last matching entry wins (so
 *    "ALL=full, 0x..=limited" keeps that port limited, as OpenSM does).
 *  - both gives a port the full and the limited P_Key only when the
 *    caller's allow_both (OpenSM allow_both_pkeys) is on; otherwise it
 *    means full, as in OpenSM.
 *  - mgid=GID[,group flag]... adds a multicast group to the partition.
 *    The group flags after it override the partition's; its scopes add
 *    to the partition's. An IP MGID (signature 0x401b or 0x601b) must
 *    carry P_Key bits 0x0000 (filled in with the partition's full P_Key)
 *    or that full P_Key, and the partition's mtu and rate.
 *
 * OpenSM has no global defmember; there is none here either.
 *
 * Defaults: the Default partition (0x7fff) always exists, first, and
 * starts with the implicit entries ALL=limited, SELF=full; a Default
 * statement in the file adds to it (OpenSM does the same). Without a
 * file, part_defaults() gives "Default=0x7fff,ipoib : ALL=full ;".
 *
 * Also unlike OpenSM, an mgid entry inherits the partition's TClass too
 * (OpenSM leaves it 0), and the mgid entries of one statement see the
 * parameters every statement of the partition gave, not only their own.
 *
 * The file is untrusted text: errors are "FILE:LINE: message" in line
 * order, parsing goes on after an error, sizes are capped. A config with
 * errors is never handed out: the caller gets an empty one.
 */
#ifndef IBSM_PARTITIONS_H
#define IBSM_PARTITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf/conf.h"

#define PART_MAX_PARTITIONS 4096   /* partitions, Default included */
#define PART_MAX_MEMBERS 65536     /* member entries in a file */
#define PART_MAX_MGIDS 4096        /* mgid entries in a file */
#define PART_MAX_NAME 64           /* bytes in a partition name */

#define PART_DEFAULT_PKEY 0x7fff
#define PART_PKEY_FULL 0x8000      /* membership bit of a 16-bit P_Key */
#define PART_IPOIB_QKEY 0x0b1b     /* Q_Key of IP groups (OpenSM's default) */

/* Membership as a bit set: both is full and limited. */
enum part_membership {
	PART_LIMITED = 1,
	PART_FULL = 2,
	PART_BOTH = 3,
};

enum part_member_kind {
	PART_M_GUID,
	PART_M_ALL,
	PART_M_ALL_CAS,
	PART_M_ALL_SWITCHES,
	PART_M_ALL_ROUTERS,
	PART_M_SELF,
};

/* Bits of part_group.set: which parameters were written in the file. */
enum part_group_field {
	PART_G_MTU = 1 << 0,
	PART_G_RATE = 1 << 1,
	PART_G_SL = 1 << 2,
	PART_G_SCOPE = 1 << 3,
	PART_G_QKEY = 1 << 4,
	PART_G_TCLASS = 1 << 5,
	PART_G_FLOWLABEL = 1 << 6,
};

/* Partition flags. */
#define PART_F_IPOIB 0x1   /* create the IPoIB broadcast group */

/*
 * Multicast group parameters, in MCMemberRecord encodings (IBA 15.2.5.17).
 * A partition's group always holds values (defaults mtu 4 = 2048, rate
 * 3 = 10 Gb/s, the rest 0); an mgid's holds only its own overrides,
 * see part_group_params().
 */
struct part_group {
	unsigned set;          /* enum part_group_field bits */
	uint32_t mtu, rate, sl, qkey, tclass, flowlabel;
	uint16_t scopes;       /* bit s: scope s; 0 = link-local (2) */
};

struct part_member {
	uint8_t kind;          /* enum part_member_kind */
	uint8_t membership;    /* enum part_membership */
	bool indx0;            /* from a statement with indx0 */
	bool implicit;         /* Default's built-in ALL=limited, SELF=full */
	uint64_t guid;         /* PART_M_GUID only */
	unsigned line;         /* 0 when implicit */
};

struct part_mgid {
	uint8_t gid[16];       /* as written, IP groups with the P_Key filled */
	struct part_group group;
	unsigned line;
};

struct part_partition {
	char *name;            /* owned, may be empty */
	uint16_t pkey;         /* low 15 bits, 0x0001..0x7fff */
	unsigned flags;        /* PART_F_* */
	struct part_group group;
	size_t n_members;
	struct part_member *members;   /* owned, file order */
	size_t n_mgids;
	struct part_mgid *mgids;       /* owned, file order */
	unsigned line;         /* first statement; 0 for the built-in Default */
};

struct part_config {
	size_t n_parts;
	struct part_partition *parts;  /* owned; [0] is Default when parsed */
	struct conf_errors warnings;   /* "FILE:LINE: warning: ..." */
};

/* A port as the resolver needs it. */
struct part_port {
	uint64_t guid;         /* port GUID (a switch: port 0's) */
	bool is_switch;        /* switch port 0 */
	bool is_router;
	bool is_sm;            /* the SM's own port (SELF) */
};

/*
 * Parse buf (len bytes, need not be NUL-terminated) into out, which must
 * not hold anything (fresh or freed). name prefixes the messages. Returns
 * the number of errors (kept + dropped in errs). With errors out has no
 * partitions; warnings are in out->warnings either way. Free out with
 * part_config_free().
 */
int part_parse_buf(struct part_config *out, const char *name,
		   const char *buf, size_t len, struct conf_errors *errs);
/*
 * part_parse_buf() on a regular file of at most CONF_MAX_FILE bytes; it
 * never blocks on a FIFO. Returns the number of errors (an unreadable file
 * is one), or -ENOENT when path does not exist: out then holds
 * part_defaults(), as OpenSM does without a file.
 */
int part_load_file(struct part_config *out, const char *path,
		   struct conf_errors *errs);
/* The configuration without a file: Default=0x7fff,ipoib : ALL=full ; */
void part_defaults(struct part_config *out);
void part_config_free(struct part_config *c);

/* Same partitions, flags, members and groups (lines and warnings aside). */
bool part_config_equal(const struct part_config *a, const struct part_config *b);
/* The partition with P_Key pkey (bit 15 ignored), or NULL. */
const struct part_partition *part_find(const struct part_config *c, uint16_t pkey);

/*
 * Canonical text: one statement per partition (more when indx0 applies to
 * part of its members), flags in table order, every membership explicit,
 * one entry per line, implicit entries left out. It parses back to an
 * equal config as long as it fits in CONF_MAX_FILE (a file near the caps
 * written with very short entries, such as "1,2,3", can dump larger than
 * itself), and OpenSM reads it too.
 */
void part_dump(const struct part_config *c, FILE *out);

/*
 * Effective parameters of a group of partition p: the IPoIB broadcast
 * group (m NULL) or mgid m. Every field is filled (set = all bits), the
 * scopes are never 0 (link-local when none is given), and Q_Key 0 becomes
 * PART_IPOIB_QKEY for IP groups, as OpenSM does.
 */
void part_group_params(const struct part_partition *p, const struct part_mgid *m,
		       struct part_group *out);
/* IPoIB broadcast MGID ff1S:401b:PPPP::ffff:ffff (RFC 4391 section 4). */
void part_ipoib_mgid(uint16_t pkey, unsigned scope, uint8_t gid[16]);

/*
 * Membership of port in p: 0 or enum part_membership bits (PART_BOTH only
 * with allow_both). *indx0 (may be NULL) says whether the entry that
 * decided asks for P_Key index 0.
 */
unsigned part_port_membership(const struct part_partition *p,
			      const struct part_port *port, bool allow_both,
			      bool *indx0);
/*
 * The P_Keys of port's P_KeyTable (16-bit, bit 15 = full), in table order:
 * index 0 holds the P_Key of the first partition (config order) whose
 * deciding entry has indx0, else the Default P_Key; the rest follow by
 * P_Key, full before limited. Writes at most cap entries and returns how
 * many the port needs (more than cap: the table is too small).
 *
 * tests/golden/partitions/opensm-cross.sh checks this against the tables
 * OpenSM programs. With allow_both_pkeys OpenSM differs at index 0 only:
 * it leaves it empty (0x0000) for a port that is only a limited member of
 * Default, and puts the limited P_Key of an indx0 partition the port is
 * in as "both" there; we put 0x7fff and the full P_Key.
 */
size_t part_port_pkeys(const struct part_config *c, const struct part_port *port,
		       bool allow_both, uint16_t *pkeys, size_t cap);

#endif

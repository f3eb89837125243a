/*
 * DOC: the QoS options' values: VLArbitration lists, SL-to-VL maps and the
 * per-port-class short form, parsed, checked and merged.
 *
 * The defaults are the qos_* options; a port class (CA ports, router
 * ports, switch port 0, switch external ports) may override any of them
 * with one string option, qos_ca / qos_rtr / qos_sw0 / qos_swe, in the
 * short form
 *
 *     max_vls=4 high_limit=0 vlarb_high=0:4 vlarb_low=0:1,1:4 sl2vl=0,1,2,...
 *
 * (keys separated by blanks or ';', each at most once, any subset). It
 * stands for OpenSM's qos_ca_* / qos_rtr_* / qos_sw0_* / qos_swe_* option
 * families, five options each, with the same value syntax (OpenSM
 * opensm.8 "QoS"; the tables are IBA 14.2.5.8 and 14.2.5.9):
 *  - a VLArbitration list is "VL:Weight" pairs separated by commas, VL
 *    0..14, Weight 0..255, at most 64 pairs (the IBA table size); an
 *    empty list is an empty table;
 *  - an SL2VL map is 16 VLs separated by commas, SL 0 first, each 0..15
 *    (15 drops the SL's packets);
 *  - max_vls 1..15 caps the data VLs used (beyond the port's OperVLs);
 *  - high_limit 0..255 is PortInfo:VLHighLimit.
 * Values are untrusted text: every parser checks syntax and ranges and
 * says what is wrong in err.
 */
#ifndef IBSM_CONF_QOSCONF_H
#define IBSM_CONF_QOSCONF_H

#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"

#define QOS_MAX_ARB 64      /* entries in one VLArbitration priority table */
#define QOS_DATA_VLS 15     /* VL0..VL14; VL15 is management */
#define QOS_VL_DROP 15      /* an SL mapped here is dropped */

enum qos_class {
	QOS_CA,      /* CA ports */
	QOS_RTR,     /* router ports */
	QOS_SW0,     /* switch port 0 (management) */
	QOS_SWE,     /* switch external ports */
	QOS_NCLASSES,
};

struct qos_arb {
	uint8_t vl;
	uint8_t weight;
};

struct qos_params {
	unsigned max_vls;      /* 1..15 */
	unsigned high_limit;   /* 0..255 */
	size_t nhigh, nlow;
	struct qos_arb high[QOS_MAX_ARB];
	struct qos_arb low[QOS_MAX_ARB];
	uint8_t sl2vl[16];
};

/* "VL:W,VL:W,...": up to QOS_MAX_ARB pairs into out, their number in *n.
 * 0, or -1 with a message in err. */
int qos_parse_vlarb(const char *s, struct qos_arb *out, size_t *n, char *err, size_t errlen);
/* Exactly 16 VLs, SL 0 first. 0, or -1 with a message in err. */
int qos_parse_sl2vl(const char *s, uint8_t out[16], char *err, size_t errlen);
/* The short form over *p: only the keys given change. 0, or -1 with a
 * message in err (*p may then be half changed). */
int qos_parse_class(const char *s, struct qos_params *p, char *err, size_t errlen);

/* The same as option value checks (conf_opt.check). */
int qos_check_vlarb(const char *s, char *err, size_t errlen);
int qos_check_sl2vl(const char *s, char *err, size_t errlen);
int qos_check_class(const char *s, char *err, size_t errlen);

/* The effective parameters of port class k under c: the qos_* options,
 * then qos_<class> over them. c must be a valid configuration. */
void qos_params_for(const struct sm_conf *c, enum qos_class k, struct qos_params *out);
const char *qos_class_name(enum qos_class k);

#endif

/*
 * DOC: the component tables (see mad/sa_fields.h) and the matcher.
 *
 * One table per record, entry n = component-mask bit n, written from the
 * record layouts of include/ibsm/sa_wire.h; the comment after each entry
 * is OpenSM's IB_*_COMPMASK_* name for that bit. F(name, byte, bit, width):
 * bit counts from the MSB of the byte. A test (test_sa_codec.c) checks that
 * the components of every table tile the record without gaps or overlaps
 * up to the last one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibsm/sa_wire.h"
#include "mad/sa.h"
#include "mad/sa_fields.h"

#define F(n, o, b, w) { .name = n, .off = o, .bit = b, .width = w }
#define NF(t) ((uint8_t)(sizeof(t) / sizeof((t)[0])))

/* NodeRecord: LID, reserved, then NodeInfo (at 4) and NodeDescription. */
static const struct sa_field node_rec[] = {
	F("LID", 0, 0, 16),                 /* IB_NR_COMPMASK_LID */
	F("reserved", 2, 0, 16),            /* RESERVED1 */
	F("BaseVersion", 4, 0, 8),          /* BASEVERSION */
	F("ClassVersion", 5, 0, 8),         /* CLASSVERSION */
	F("NodeType", 6, 0, 8),             /* NODETYPE */
	F("NumPorts", 7, 0, 8),             /* NUMPORTS */
	F("SystemImageGUID", 8, 0, 64),     /* SYSIMAGEGUID */
	F("NodeGUID", 16, 0, 64),           /* NODEGUID */
	F("PortGUID", 24, 0, 64),           /* PORTGUID */
	F("PartitionCap", 32, 0, 16),       /* PARTCAP */
	F("DeviceID", 34, 0, 16),           /* DEVID */
	F("Revision", 36, 0, 32),           /* REV */
	F("LocalPortNum", 40, 0, 8),        /* PORTNUM */
	F("VendorID", 41, 0, 24),           /* VENDID */
	F("NodeDescription", 44, 0, 512),   /* NODEDESC */
};

/* PortInfoRecord: the PortInfo fields start at byte 4 (PortInfo byte n is
 * record byte n + 4). */
static const struct sa_field port_info_rec[] = {
	F("EndportLID", 0, 0, 16),          /* IB_PIR_COMPMASK_LID */
	F("PortNum", 2, 0, 8),              /* PORTNUM */
	F("Options", 3, 0, 8),              /* OPTIONS */
	F("M_Key", 4, 0, 64),               /* MKEY */
	F("GIDPrefix", 12, 0, 64),          /* GIDPRE */
	F("LID", 20, 0, 16),                /* BASELID */
	F("MasterSMLID", 22, 0, 16),        /* SMLID */
	F("CapabilityMask", 24, 0, 32),     /* CAPMASK */
	F("DiagCode", 28, 0, 16),           /* DIAGCODE */
	F("M_KeyLeasePeriod", 30, 0, 16),   /* MKEYLEASEPRD */
	F("LocalPortNum", 32, 0, 8),        /* LOCALPORTNUM */
	F("LinkWidthEnabled", 33, 0, 8),    /* LINKWIDTHENABLED */
	F("LinkWidthSupported", 34, 0, 8),  /* LNKWIDTHSUPPORT */
	F("LinkWidthActive", 35, 0, 8),     /* LNKWIDTHACTIVE */
	F("LinkSpeedSupported", 36, 0, 4),  /* LNKSPEEDSUPPORT */
	F("PortState", 36, 4, 4),           /* PORTSTATE */
	F("PortPhysicalState", 37, 0, 4),   /* PORTPHYSTATE */
	F("LinkDownDefaultState", 37, 4, 4), /* LINKDWNDFLTSTATE */
	F("M_KeyProtectBits", 38, 0, 2),    /* MKEYPROTBITS */
	F("reserved", 38, 2, 3),            /* RESV2 */
	F("LMC", 38, 5, 3),                 /* LMC */
	F("LinkSpeedActive", 39, 0, 4),     /* LINKSPEEDACTIVE */
	F("LinkSpeedEnabled", 39, 4, 4),    /* LINKSPEEDENABLE */
	F("NeighborMTU", 40, 0, 4),         /* NEIGHBORMTU */
	F("MasterSMSL", 40, 4, 4),          /* MASTERSMSL */
	F("VLCap", 41, 0, 4),               /* VLCAP */
	F("InitType", 41, 4, 4),            /* INITTYPE */
	F("VLHighLimit", 42, 0, 8),         /* VLHIGHLIMIT */
	F("VLArbitrationHighCap", 43, 0, 8), /* VLARBHIGHCAP */
	F("VLArbitrationLowCap", 44, 0, 8), /* VLARBLOWCAP */
	F("InitTypeReply", 45, 0, 4),       /* INITTYPEREPLY */
	F("MTUCap", 45, 4, 4),              /* MTUCAP */
	F("VLStallCount", 46, 0, 3),        /* VLSTALLCNT */
	F("HOQLife", 46, 3, 5),             /* HOQLIFE */
	F("OperationalVLs", 47, 0, 4),      /* OPVLS */
	F("PartitionEnforcementInbound", 47, 4, 1),  /* PARENFIN */
	F("PartitionEnforcementOutbound", 47, 5, 1), /* PARENFOUT */
	F("FilterRawInbound", 47, 6, 1),    /* FILTERRAWIN */
	F("FilterRawOutbound", 47, 7, 1),   /* FILTERRAWOUT */
	F("M_KeyViolations", 48, 0, 16),    /* MKEYVIO */
	F("P_KeyViolations", 50, 0, 16),    /* PKEYVIO */
	F("Q_KeyViolations", 52, 0, 16),    /* QKEYVIO */
	F("GUIDCap", 54, 0, 8),             /* GUIDCAP */
	F("ClientReregister", 55, 0, 1),    /* CLIENTREREG */
	F("reserved", 55, 1, 2),            /* RESV3 */
	F("SubnetTimeOut", 55, 3, 5),       /* SUBNTO */
	F("reserved", 56, 0, 3),            /* RESV4 */
	F("RespTimeValue", 56, 3, 5),       /* RESPTIME */
	F("LocalPhyErrors", 57, 0, 4),      /* LOCALPHYERR */
	F("OverrunErrors", 57, 4, 4),       /* OVERRUNERR */
	F("MaxCreditHint", 58, 0, 16),      /* MAXCREDHINT */
	F("reserved", 60, 0, 8),            /* RESV5 */
	F("LinkRoundTripLatency", 61, 0, 24), /* LINKRTLAT */
	F("CapabilityMask2", 64, 0, 16),    /* CAPMASK2 */
	F("LinkSpeedExtActive", 66, 0, 4),  /* LINKSPDEXTACT */
	F("LinkSpeedExtSupported", 66, 4, 4), /* LINKSPDEXTSUPP */
	F("reserved", 67, 0, 3),            /* RESV7 */
	F("LinkSpeedExtEnabled", 67, 3, 5), /* LINKSPDEXTENAB */
};

static const struct sa_field sl2vl_rec[] = {
	F("LID", 0, 0, 16),                 /* IB_SLVL_COMPMASK_LID */
	F("InputPortNum", 2, 0, 8),         /* IN_PORT */
	F("OutputPortNum", 3, 0, 8),        /* OUT_PORT */
};

static const struct sa_field switch_info_rec[] = {
	F("LID", 0, 0, 16),                 /* IB_SWIR_COMPMASK_LID */
	F("reserved", 2, 0, 16),            /* RESERVED1 */
};

static const struct sa_field lft_rec[] = {
	F("LID", 0, 0, 16),                 /* IB_LFTR_COMPMASK_LID */
	F("BlockNum", 2, 0, 16),            /* BLOCK */
};

static const struct sa_field mft_rec[] = {
	F("LID", 0, 0, 16),                 /* IB_MFTR_COMPMASK_LID */
	F("Position", 2, 0, 4),             /* POSITION */
	F("reserved", 2, 4, 3),             /* RESERVED1 */
	F("BlockNum", 2, 7, 9),             /* BLOCK */
	F("reserved", 4, 0, 32),            /* RESERVED2 */
};

static const struct sa_field sm_info_rec[] = {
	F("LID", 0, 0, 16),                 /* IB_SMIR_COMPMASK_LID */
	F("reserved", 2, 0, 16),            /* RESV0 */
	F("GUID", 4, 0, 64),                /* GUID */
	F("SM_Key", 12, 0, 64),             /* SMKEY */
	F("ActCount", 20, 0, 32),           /* ACTCOUNT */
	F("Priority", 24, 0, 4),            /* PRIORITY */
	F("SMState", 24, 4, 4),             /* SMSTATE */
};

static const struct sa_field link_rec[] = {
	F("FromLID", 0, 0, 16),             /* IB_LR_COMPMASK_FROM_LID */
	F("FromPort", 2, 0, 8),             /* FROM_PORT */
	F("ToPort", 3, 0, 8),               /* TO_PORT */
	F("ToLID", 4, 0, 16),               /* TO_LID */
};

static const struct sa_field guid_info_rec[] = {
	F("LID", 0, 0, 16),                 /* IB_GIR_COMPMASK_LID */
	F("BlockNum", 2, 0, 8),             /* BLOCKNUM */
	F("reserved", 3, 0, 8),             /* RESV1 */
	F("reserved", 4, 0, 32),            /* RESV2 */
	F("GUID0", 8, 0, 64),               /* GID0 */
	F("GUID1", 16, 0, 64),
	F("GUID2", 24, 0, 64),
	F("GUID3", 32, 0, 64),
	F("GUID4", 40, 0, 64),
	F("GUID5", 48, 0, 64),
	F("GUID6", 56, 0, 64),
	F("GUID7", 64, 0, 64),              /* GID7 */
};

static const struct sa_field service_rec[] = {
	F("ServiceID", 0, 0, 64),           /* IB_SR_COMPMASK_SID */
	F("ServiceGID", 8, 0, 128),         /* SGID */
	F("ServiceP_Key", 24, 0, 16),       /* SPKEY */
	F("reserved", 26, 0, 16),           /* RES1 */
	F("ServiceLease", 28, 0, 32),       /* SLEASE */
	F("ServiceKey", 32, 0, 128),        /* SKEY */
	F("ServiceName", 48, 0, 512),       /* SNAME */
	F("ServiceData8.0", 112, 0, 8),     /* SDATA8_0 */
	F("ServiceData8.1", 113, 0, 8),
	F("ServiceData8.2", 114, 0, 8),
	F("ServiceData8.3", 115, 0, 8),
	F("ServiceData8.4", 116, 0, 8),
	F("ServiceData8.5", 117, 0, 8),
	F("ServiceData8.6", 118, 0, 8),
	F("ServiceData8.7", 119, 0, 8),
	F("ServiceData8.8", 120, 0, 8),
	F("ServiceData8.9", 121, 0, 8),
	F("ServiceData8.10", 122, 0, 8),
	F("ServiceData8.11", 123, 0, 8),
	F("ServiceData8.12", 124, 0, 8),
	F("ServiceData8.13", 125, 0, 8),
	F("ServiceData8.14", 126, 0, 8),
	F("ServiceData8.15", 127, 0, 8),    /* SDATA8_15 */
	F("ServiceData16.0", 128, 0, 16),   /* SDATA16_0 */
	F("ServiceData16.1", 130, 0, 16),
	F("ServiceData16.2", 132, 0, 16),
	F("ServiceData16.3", 134, 0, 16),
	F("ServiceData16.4", 136, 0, 16),
	F("ServiceData16.5", 138, 0, 16),
	F("ServiceData16.6", 140, 0, 16),
	F("ServiceData16.7", 142, 0, 16),   /* SDATA16_7 */
	F("ServiceData32.0", 144, 0, 32),   /* SDATA32_0 */
	F("ServiceData32.1", 148, 0, 32),
	F("ServiceData32.2", 152, 0, 32),
	F("ServiceData32.3", 156, 0, 32),   /* SDATA32_3 */
	F("ServiceData64.0", 160, 0, 64),   /* SDATA64_0 */
	F("ServiceData64.1", 168, 0, 64),   /* SDATA64_1 */
};

static const struct sa_field pkey_rec[] = {
	F("LID", 0, 0, 16),                 /* IB_PKEY_COMPMASK_LID */
	F("BlockNum", 2, 0, 16),            /* BLOCK */
	F("PortNum", 4, 0, 8),              /* PORT */
};

/* PathRecord. Bits 0 and 1 are ServiceID8MSB and ServiceID56LSB, which
 * CA13-6 (as quoted in opa-ff's ib_sa_records.h) says come together; the
 * reference has the split the other way round (56 + 8), which matches the
 * same way for the only masks allowed (both or neither). */
static const struct sa_field path_rec[] = {
	F("ServiceID8MSB", 0, 0, 8),        /* IB_PR_COMPMASK_SERVICEID_MSB */
	F("ServiceID56LSB", 1, 0, 56),      /* SERVICEID_LSB */
	F("DGID", 8, 0, 128),               /* DGID */
	F("SGID", 24, 0, 128),              /* SGID */
	F("DLID", 40, 0, 16),               /* DLID */
	F("SLID", 42, 0, 16),               /* SLID */
	F("RawTraffic", 44, 0, 1),          /* RAWTRAFFIC */
	F("reserved", 44, 1, 3),            /* RESV0 */
	F("FlowLabel", 44, 4, 20),          /* FLOWLABEL */
	F("HopLimit", 47, 0, 8),            /* HOPLIMIT */
	F("TClass", 48, 0, 8),              /* TCLASS */
	F("Reversible", 49, 0, 1),          /* REVERSIBLE */
	F("NumbPath", 49, 1, 7),            /* NUMBPATH */
	F("P_Key", 50, 0, 16),              /* PKEY */
	F("QoSClass", 52, 0, 12),           /* QOS_CLASS */
	F("SL", 53, 4, 4),                  /* SL */
	F("MTUSelector", 54, 0, 2),         /* MTUSELEC */
	F("MTU", 54, 2, 6),                 /* MTU */
	F("RateSelector", 55, 0, 2),        /* RATESELEC */
	F("Rate", 55, 2, 6),                /* RATE */
	F("PacketLifeTimeSelector", 56, 0, 2), /* PKTLIFETIMESELEC */
	F("PacketLifeTime", 56, 2, 6),      /* PKTLIFETIME */
	F("Preference", 57, 0, 8),          /* Linux IB_SA_PATH_REC_PREFERENCE */
};

static const struct sa_field vlarb_rec[] = {
	F("LID", 0, 0, 16),                 /* IB_VLA_COMPMASK_LID */
	F("OutputPortNum", 2, 0, 8),        /* OUT_PORT */
	F("BlockNum", 3, 0, 8),             /* BLOCK */
};

static const struct sa_field mcmember_rec[] = {
	F("MGID", 0, 0, 128),               /* IB_MCR_COMPMASK_MGID */
	F("PortGID", 16, 0, 128),           /* PORT_GID */
	F("Q_Key", 32, 0, 32),              /* QKEY */
	F("MLID", 36, 0, 16),               /* MLID */
	F("MTUSelector", 38, 0, 2),         /* MTU_SEL */
	F("MTU", 38, 2, 6),                 /* MTU */
	F("TClass", 39, 0, 8),              /* TCLASS */
	F("P_Key", 40, 0, 16),              /* PKEY */
	F("RateSelector", 42, 0, 2),        /* RATE_SEL */
	F("Rate", 42, 2, 6),                /* RATE */
	F("PacketLifeTimeSelector", 43, 0, 2), /* LIFE_SEL */
	F("PacketLifeTime", 43, 2, 6),      /* LIFE */
	F("SL", 44, 0, 4),                  /* SL */
	F("FlowLabel", 44, 4, 20),          /* FLOW */
	F("HopLimit", 47, 0, 8),            /* HOP */
	F("Scope", 48, 0, 4),               /* SCOPE */
	F("JoinState", 48, 4, 4),           /* JOIN_STATE */
	F("ProxyJoin", 49, 0, 1),           /* PROXY */
};

/* MultiPathRecord, fixed part: bits 0-15 are PathRecord bits 6-21. */
static const struct sa_field multipath_rec[] = {
	F("RawTraffic", 0, 0, 1),           /* IB_MPR_COMPMASK_RAWTRAFFIC */
	F("reserved", 0, 1, 3),             /* RESV0 */
	F("FlowLabel", 0, 4, 20),           /* FLOWLABEL */
	F("HopLimit", 3, 0, 8),             /* HOPLIMIT */
	F("TClass", 4, 0, 8),               /* TCLASS */
	F("Reversible", 5, 0, 1),           /* REVERSIBLE */
	F("NumbPath", 5, 1, 7),             /* NUMBPATH */
	F("P_Key", 6, 0, 16),               /* PKEY */
	F("QoSClass", 8, 0, 12),            /* QOS_CLASS */
	F("SL", 9, 4, 4),                   /* SL */
	F("MTUSelector", 10, 0, 2),         /* MTUSELEC */
	F("MTU", 10, 2, 6),                 /* MTU */
	F("RateSelector", 11, 0, 2),        /* RATESELEC */
	F("Rate", 11, 2, 6),                /* RATE */
	F("PacketLifeTimeSelector", 12, 0, 2), /* PKTLIFETIMESELEC */
	F("PacketLifeTime", 12, 2, 6),      /* PKTLIFETIME */
	F("ServiceID8MSB", 13, 0, 8),       /* SERVICEID_MSB */
	F("IndependenceSelector", 14, 0, 2), /* INDEPSELEC */
	F("reserved", 14, 2, 6),            /* RESV3 */
	F("SGIDCount", 15, 0, 8),           /* SGIDCOUNT */
	F("DGIDCount", 16, 0, 8),           /* DGIDCOUNT */
	F("ServiceID56LSB", 17, 0, 56),     /* SERVICEID_LSB */
};

/* InformInfoRecord: InformInfo starts at byte 24. */
static const struct sa_field inform_info_rec[] = {
	F("SubscriberGID", 0, 0, 128),      /* IB_IIR_COMPMASK_SUBSCRIBERGID */
	F("Enum", 16, 0, 16),               /* ENUM */
	F("reserved", 18, 0, 48),           /* RESV0 */
	F("GID", 24, 0, 128),               /* GID */
	F("LIDRangeBegin", 40, 0, 16),      /* LIDRANGEBEGIN */
	F("LIDRangeEnd", 42, 0, 16),        /* LIDRANGEEND */
	F("reserved", 44, 0, 16),           /* RESV1 */
	F("IsGeneric", 46, 0, 8),           /* ISGENERIC */
	F("Subscribe", 47, 0, 8),           /* SUBSCRIBE */
	F("Type", 48, 0, 16),               /* TYPE */
	F("TrapNumber", 50, 0, 16),         /* TRAPNUMB, DEVICEID */
	F("QPN", 52, 0, 24),                /* QPN */
	F("reserved", 55, 0, 3),            /* RESV2 */
	F("RespTimeValue", 55, 3, 5),       /* RESPTIME */
	F("reserved", 56, 0, 8),            /* RESV3 */
	F("ProducerType", 57, 0, 24),       /* PRODTYPE, VENDID */
};

#define DESC(n, id, wire, t)                                                         \
	{ .name = n, .attr_id = id, .size = sizeof(struct wire),                     \
	  .padded = SA_REC_PADDED(sizeof(struct wire)), .nfields = NF(t), .fields = t }

static const struct sa_rec_desc descs[] = {
	DESC("NodeRecord", SA_ATTR_NODE_REC, sa_node_rec_wire, node_rec),
	DESC("PortInfoRecord", SA_ATTR_PORT_INFO_REC, sa_port_info_rec_wire, port_info_rec),
	DESC("SL2VLTableRecord", SA_ATTR_SL2VL_REC, sa_sl2vl_rec_wire, sl2vl_rec),
	DESC("SwitchInfoRecord", SA_ATTR_SWITCH_INFO_REC, sa_switch_info_rec_wire,
	     switch_info_rec),
	DESC("LinearForwardingTableRecord", SA_ATTR_LFT_REC, sa_lft_rec_wire, lft_rec),
	DESC("MulticastForwardingTableRecord", SA_ATTR_MFT_REC, sa_mft_rec_wire, mft_rec),
	DESC("SMInfoRecord", SA_ATTR_SM_INFO_REC, sa_sm_info_rec_wire, sm_info_rec),
	DESC("LinkRecord", SA_ATTR_LINK_REC, sa_link_rec_wire, link_rec),
	DESC("GUIDInfoRecord", SA_ATTR_GUID_INFO_REC, sa_guid_info_rec_wire, guid_info_rec),
	DESC("ServiceRecord", SA_ATTR_SERVICE_REC, sa_service_rec_wire, service_rec),
	DESC("P_KeyTableRecord", SA_ATTR_PKEY_REC, sa_pkey_rec_wire, pkey_rec),
	DESC("PathRecord", SA_ATTR_PATH_REC, sa_path_rec_wire, path_rec),
	DESC("VLArbitrationTableRecord", SA_ATTR_VLARB_REC, sa_vlarb_rec_wire, vlarb_rec),
	DESC("MCMemberRecord", SA_ATTR_MCMEMBER_REC, sa_mcmember_rec_wire, mcmember_rec),
	DESC("MultiPathRecord", SA_ATTR_MULTIPATH_REC, sa_multipath_rec_wire, multipath_rec),
	DESC("InformInfoRecord", SA_ATTR_INFORM_INFO_REC, sa_inform_info_rec_wire,
	     inform_info_rec),
};

const struct sa_rec_desc *sa_rec_desc_find(uint16_t attr_id)
{
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		if (descs[i].attr_id == attr_id)
			return &descs[i];
	return NULL;
}

const struct sa_rec_desc *sa_rec_descs(size_t *n)
{
	*n = sizeof(descs) / sizeof(descs[0]);
	return descs;
}

int sa_mask_check(const struct sa_rec_desc *d, uint64_t mask)
{
	if (!d)
		return -EINVAL;
	if (d->nfields < 64 && (mask >> d->nfields) != 0)
		return -EINVAL;
	return 0;
}

/* Bits [bit, bit + n) of one byte, counted from the MSB, as a mask. */
static uint8_t byte_mask(unsigned bit, unsigned n)
{
	return (uint8_t)((0xFFu >> bit) & (0xFFu << (8 - bit - n)));
}

bool sa_field_equal(const struct sa_field *f, const uint8_t *a, const uint8_t *b)
{
	unsigned bit = f->bit, left = f->width;
	size_t i = f->off;

	/* Whole bytes in the middle compare directly; the first and last
	 * byte only on the field's bits. */
	while (left) {
		unsigned n = 8 - bit < left ? 8 - bit : left;
		uint8_t m = byte_mask(bit, n);

		if ((a[i] ^ b[i]) & m)
			return false;
		left -= n;
		bit = 0;
		i++;
	}
	return true;
}

bool sa_match(const struct sa_rec_desc *d, const uint8_t *tmpl, const uint8_t *rec,
	      uint64_t mask)
{
	for (unsigned n = 0; n < d->nfields && mask >> n; n++)
		if (((mask >> n) & 1) && !sa_field_equal(&d->fields[n], tmpl, rec))
			return false;
	return true;
}

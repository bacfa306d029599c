/*
 * fields_table.h - the layout of one field row, for code that loops over
 * the table (smi, dmon, exporter, store) and for the files that hold rows
 * and readers.
 *
 * A row says everything about one metric: its nvidia-smi --query-gpu name
 * and aliases, the unit and number format nvidia-smi prints, the reader
 * (a function plus up to three integer arguments, so one ECC reader serves
 * all 36 ECC fields), the canonical unit the value is stored in, the DCGM
 * field (name and id) and a native Prometheus name, type and help, the dmon
 * column it feeds, and our own one-line description for --help-query-gpu.
 *
 * The rows live in fields_tab_*.c, one array per area, concatenated in
 * nvidia-smi's --help-query-gpu order by fields.c. Readers live in
 * readers_*.c; formatting in format.c.
 *
 * Ownership: rows are static and read-only. Threading: reentrant.
 */
#ifndef GW_FIELDS_TABLE_H
#define GW_FIELDS_TABLE_H

#include "fields/fields.h"

#include <stdbool.h>

/* How nvidia-smi prints a value (the number/text shape, not the unit). */
enum gw_fmt {
	GW_FMT_UINT,	  /* decimal integer: "16", "4000" */
	GW_FMT_MIB,	  /* bytes shown as MiB, integer division by 1048576 */
	GW_FMT_MW_AS_W,	  /* mW shown as W with two decimals: "700.00" */
	GW_FMT_NS_AS_US,  /* ns shown as integer us */
	GW_FMT_HEX,	  /* "0x" + upper-case hex zero-padded to width digits */
	GW_FMT_ENABLED,	  /* 0/1 -> "Disabled"/"Enabled" */
	GW_FMT_ACTIVE,	  /* 0/1 -> "Not Active"/"Active" */
	GW_FMT_YESNO,	  /* 0/1 -> "No"/"Yes" */
	GW_FMT_PSTATE,	  /* 0..15 -> "P0".."P15" */
	GW_FMT_ENUM,	  /* index into the row's names[] */
	GW_FMT_STR,	  /* the value's string as is */
	GW_FMT_TIMESTAMP, /* ns since the epoch -> "YYYY/MM/DD HH:MM:SS.mmm", local time */
};

/* The unit a value is kept in (canonical; conversion only when printing). */
enum gw_cunit {
	GW_CU_NONE,
	GW_CU_BYTES,
	GW_CU_MW, /* milliwatts */
	GW_CU_MJ, /* millijoules */
	GW_CU_MHZ,
	GW_CU_CELSIUS,
	GW_CU_PERCENT, /* 0..100 */
	GW_CU_NS,
	GW_CU_KBPS,  /* KB/s (NVML's PCIe throughput) */
	GW_CU_COUNT, /* a plain count */
	GW_CU_RATIO, /* 0..1 (GPM activities, as DCGM's DCGM_FI_PROF_* report them) */
	GW_CU_BPS,   /* bytes per second */
};

/* Prometheus metric type of the native name. */
enum gw_ptype {
	GW_PT_NONE, /* not exported as a metric */
	GW_PT_GAUGE,
	GW_PT_COUNTER,
	GW_PT_INFO, /* a string: exported as a label of an _info series */
};

/* Row flags. */
#define GW_FL_NOSMI 0x1	 /* not an nvidia-smi --query-gpu field (extra metric) */
#define GW_FL_STATIC 0x2 /* does not change while the driver is loaded */
#define GW_FL_SLOW 0x4   /* costly to read (ECC, retired pages, PCIe throughput): sampled less often */
#define GW_FL_DCGM_INT 0x8 /* DCGM's field is an int64 (DCGM_FI_PROF_PCIE_TX_BYTES): printed and stored whole */
/* The reader gives a KiB counter; the sampler publishes DCGM's rate of it instead: KiB per second / 1000
 * between two reads, 0 on the first read and when the counter is 0 (DCGM's NVLink bandwidth fields) */
#define GW_FL_KIB_RATE 0x10
/* Read only while a consumer asks for it (gw_sampler_want): a row most users never list, whose read
 * would cost every GPU a driver call per sample (DCGM's per-link NVLink fields) */
#define GW_FL_ON_DEMAND 0x20

struct gw_field;
typedef void (*gw_field_reader)(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);

#define GW_FIELD_ALIASES_MAX 2

struct gw_field {
	const char *name;			   /* canonical --query-gpu name (header) */
	const char *aliases[GW_FIELD_ALIASES_MAX]; /* other accepted names, NULL-padded */
	const char *unit;			   /* smi unit without brackets ("MiB"), or NULL */
	uint8_t fmt;				   /* enum gw_fmt */
	uint8_t width;				   /* GW_FMT_HEX digits */
	uint8_t cunit;				   /* enum gw_cunit */
	uint8_t flags;				   /* GW_FL_* */
	uint8_t section; /* --help-query-gpu section (index into gw_field_sections) */
	gw_field_reader read;
	int arg[3];		  /* reader arguments */
	const char *const *names; /* GW_FMT_ENUM: value -> text */
	uint8_t nnames;
	/*
	 * Printed when the value is not available (state NA). NULL: "[N/A]".
	 * Fields nvidia-smi prints as plain "N/A" or as a fixed text (see the
	 * H200 capture) say so here; na_unit appends " unit" unless nounits.
	 */
	const char *na;
	bool na_unit;
	const char *dcgm; /* DCGM field name, or NULL */
	uint16_t dcgm_id; /* DCGM field id, 0 if none */
	const char *prom; /* native Prometheus name, or NULL */
	uint8_t ptype;	  /* enum gw_ptype */
	const char *help; /* Prometheus HELP text */
	const char *dmon; /* nvidia-smi dmon column fed, or NULL */
	const char *desc; /* --help-query-gpu description, our words */
};

/* A --help-query-gpu section: printed before the first field that has it. */
struct gw_field_section {
	const char *title; /* NULL: no heading (loose fields) */
	const char *text;
};
extern const struct gw_field_section gw_field_sections[];

/* The parts of the table, in nvidia-smi order (fields_tab_*.c). */
extern const struct gw_field gw_fields_ident[];
extern const size_t gw_fields_ident_n;
extern const struct gw_field gw_fields_perf[];
extern const size_t gw_fields_perf_n;
extern const struct gw_field gw_fields_ecc[];
extern const size_t gw_fields_ecc_n;
extern const struct gw_field gw_fields_power[];
extern const size_t gw_fields_power_n;

/* Look up a field by canonical name, smi alias or (for GW_FL_NOSMI rows) key. */
const struct gw_field *gw_field_find_any(const char *name);

/* Value converted to the Prometheus base unit (bytes, watts, joules, hertz,
 * celsius, seconds, ratio 0-1). Only meaningful when v->state == GW_V_OK. */
double gw_field_prom_value(const struct gw_field *f, const struct gw_value *v);

/* Text of a value state ("[N/A]", ...), as nvidia-smi prints it. */
const char *gw_vstate_text(enum gw_vstate s);

/* ---- helpers for readers (fields.c) ------------------------------------ */

/* Map an NVML return code to a value state; marks the GPU lost on GPU_IS_LOST. */
void gw_field_set_nvml(const struct gw_read_ctx *c, struct gw_value *v, nvmlReturn_t r);

static inline void gw_value_int(struct gw_value *v, int64_t i)
{
	v->state = GW_V_OK;
	v->kind = GW_VK_INT;
	v->i = i;
}

static inline void gw_value_na(struct gw_value *v)
{
	v->state = GW_V_NA;
	v->kind = GW_VK_INT;
	v->i = 0;
}

/* Copy s into v->s (truncating) and mark the value a valid string. */
void gw_value_str(struct gw_value *v, const char *s);

/* ---- readers (readers_*.c) -------------------------------------------- */

/* Table-driven readers; what arg[] means is documented at each definition. */
void gw_rd_none(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_deprecated(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_timestamp(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_sysinfo(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_ident(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_pci(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_uint(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_inforom(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_inforom_valid(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_pair(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_field_value(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_clock_events(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_memory(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_utilization(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_engine_util(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_encoder_stats(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_compute_cap(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_energy(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_clock(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_temperature(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_pcie_throughput(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_bar1(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_gpm(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_brand(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_vgpu_license(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_nvlink_kib(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_nvlink_err(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
/* The link gw_rd_nvlink_kib reads (UINT_MAX: every link). */
unsigned int gw_rd_nvlink_scope(const struct gw_field *f);
/*
 * One NVML field value of the context's GPU: the round's prefetched answer
 * (gw_read_prefetch) when it was asked for, else a call of its own; a
 * failure of the call or of the value is counted in the tally.
 */
nvmlReturn_t gw_read_field_value(const struct gw_read_ctx *c, unsigned int id, unsigned int scope, nvmlFieldValue_t *fv);
/* The same, the value's own answer (fv->nvmlReturn) left to the caller to judge and count. */
nvmlReturn_t gw_read_field_value_raw(const struct gw_read_ctx *c, unsigned int id, unsigned int scope,
				     nvmlFieldValue_t *fv);
void gw_rd_dsample(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_ecc(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_ecc_total(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_retired(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_remapped(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_violation(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_remap_histogram(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);
void gw_rd_nvlink_active(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *v);

#endif

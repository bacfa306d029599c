/*
 * fields.c - the table as one sequence: lookup by name, iteration, reading,
 * and the mapping from NVML return codes to value states.
 */
#include "fields/fields_table.h"

#include <math.h>
#include <string.h>

struct part {
	const struct gw_field *rows;
	const size_t *n;
};

/* The parts in nvidia-smi --help-query-gpu order. */
static const struct part parts[] = {
    {gw_fields_ident, &gw_fields_ident_n},
    {gw_fields_perf, &gw_fields_perf_n},
    {gw_fields_ecc, &gw_fields_ecc_n},
    {gw_fields_power, &gw_fields_power_n},
};
#define NPARTS (sizeof(parts) / sizeof(parts[0]))

static const char *const vstate_text[] = {
#define GW_VSTATE_TEXT(name, text) text,
    GW_VSTATE_MAP(GW_VSTATE_TEXT)
#undef GW_VSTATE_TEXT
};

const char *gw_vstate_text(enum gw_vstate s)
{
	if ((size_t)s >= sizeof(vstate_text) / sizeof(vstate_text[0]))
		return "[Unknown Error]";
	return vstate_text[s];
}

size_t gw_fields_count(void)
{
	size_t n = 0;
	for (size_t p = 0; p < NPARTS; p++)
		n += *parts[p].n;
	return n;
}

const struct gw_field *gw_field_at(size_t i)
{
	for (size_t p = 0; p < NPARTS; p++) {
		if (i < *parts[p].n)
			return &parts[p].rows[i];
		i -= *parts[p].n;
	}
	return NULL;
}

/* Linear, by equality (pointers into different arrays do not compare by order): run at start-up. */
long gw_field_index(const struct gw_field *f)
{
	long at = 0;
	for (size_t p = 0; f && p < NPARTS; p++)
		for (size_t i = 0; i < *parts[p].n; i++, at++)
			if (&parts[p].rows[i] == f)
				return at;
	return -1;
}

static bool matches(const struct gw_field *f, const char *name)
{
	if (strcmp(f->name, name) == 0)
		return true;
	for (size_t a = 0; a < GW_FIELD_ALIASES_MAX && f->aliases[a]; a++)
		if (strcmp(f->aliases[a], name) == 0)
			return true;
	return false;
}

const struct gw_field *gw_field_find_any(const char *name)
{
	for (size_t p = 0; p < NPARTS; p++)
		for (size_t i = 0; i < *parts[p].n; i++)
			if (matches(&parts[p].rows[i], name))
				return &parts[p].rows[i];
	return NULL;
}

/* Linear over ~220 rows: runs once per query list, never per sample. */
const struct gw_field *gw_field_find(const char *name)
{
	const struct gw_field *f = gw_field_find_any(name);
	return f && !(f->flags & GW_FL_NOSMI) ? f : NULL;
}

int gw_field_read(const struct gw_field *f, const struct gw_read_ctx *c, struct gw_value *out)
{
	out->state = GW_V_NA;
	out->kind = GW_VK_INT;
	out->i = 0;
	out->d = 0;
	out->s[0] = '\0';
	/* A lost GPU answers nothing; do not wait on the driver again for it. */
	if (c->gpu && c->gpu->lost && f->read != gw_rd_timestamp && f->read != gw_rd_sysinfo) {
		out->state = GW_V_GPU_LOST;
		return 0;
	}
	f->read(f, c, out);
	return 0;
}

void gw_field_set_nvml(const struct gw_read_ctx *c, struct gw_value *v, nvmlReturn_t r)
{
	switch (r) {
	case NVML_SUCCESS:
		v->state = GW_V_OK;
		break;
	case NVML_ERROR_NOT_SUPPORTED:
	case NVML_ERROR_FUNCTION_NOT_FOUND:
	case NVML_ERROR_NOT_FOUND:
		/* current drivers print unsupported values as [N/A] */
		v->state = GW_V_NA;
		break;
	case NVML_ERROR_DEPRECATED:
		v->state = GW_V_DEPRECATED;
		break;
	case NVML_ERROR_NO_PERMISSION:
		v->state = GW_V_NO_PERMISSION;
		break;
	case NVML_ERROR_RESET_REQUIRED:
		v->state = GW_V_RESET_REQUIRED;
		break;
	case NVML_ERROR_GPU_IS_LOST:
		v->state = GW_V_GPU_LOST;
		if (c->gpu)
			c->gpu->lost = true;
		break;
	default:
		v->state = GW_V_UNKNOWN_ERROR;
		break;
	}
}

void gw_value_str(struct gw_value *v, const char *s)
{
	size_t n = strnlen(s, GW_VALUE_STR_MAX - 1);
	memcpy(v->s, s, n);
	v->s[n] = '\0';
	v->state = GW_V_OK;
	v->kind = GW_VK_STR;
}

/*
 * From the canonical unit to the Prometheus base unit: x * mul / div.
 * Dividing by an exact power of ten (rather than multiplying by 1e-3)
 * gives the double nearest the decimal, so 612340 mW exports as 612.34,
 * not 612.3400000000001.
 */
static const struct {
	double mul, div;
} prom_unit[] = {
    [GW_CU_NONE] = {1, 1},	[GW_CU_BYTES] = {1, 1},	  [GW_CU_MW] = {1, 1e3},     [GW_CU_MJ] = {1, 1e3},
    [GW_CU_MHZ] = {1e6, 1},	[GW_CU_CELSIUS] = {1, 1}, [GW_CU_PERCENT] = {1, 1e2}, [GW_CU_NS] = {1, 1e9},
    [GW_CU_KBPS] = {1024.0, 1}, [GW_CU_COUNT] = {1, 1},	  [GW_CU_RATIO] = {1, 1},    [GW_CU_BPS] = {1, 1},
};

double gw_field_prom_value(const struct gw_field *f, const struct gw_value *v)
{
	double x = v->kind == GW_VK_FLOAT ? v->d : (double)v->i, div = prom_unit[f->cunit].div;
	if (v->kind == GW_VK_FLOAT && div > 1 && prom_unit[f->cunit].mul == 1 && isfinite(x)) {
		/* A float with few decimals (a mean kept to 0.1 %, 0.1 mW) scaled
		 * down stays a short decimal: 30.7 % is 307 / 1000 exactly as
		 * 0.307 reads, not 30.7 / 100 one bit off; so it prints short
		 * and the history's decimal coder takes it. */
		double p = 1;
		for (int d = 0; d <= 6; d++, p *= 10) {
			double s = x * p;
			if (!(fabs(s) < 9007199254740992.0))
				break;
			double r = nearbyint(s);
			if (r / p == x)
				return r / (div * p);
		}
	}
	return x * prom_unit[f->cunit].mul / div;
}

/*
 * scenario_keys.c - the table of per-GPU scenario keys: every static value
 * a board has (struct gwsim_static) and every pinnable dynamic value
 * (GWSIM_PIN_LIST), so a scenario can reproduce any capture. The parser
 * (scenario.c) and docs/SIMULATOR.md both follow this table.
 */
#include "sim.h"
#include "scenario.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum ktype { K_STR, K_UINT, K_DBL, K_BOOL, K_HEX64 };

struct skey {
	const char *key;
	enum ktype type;
	size_t off;
	size_t size;   /* K_STR: buffer size */
	double lo, hi; /* K_UINT, K_DBL: the values a board can have */
};

#define S(k, f) {k, K_STR, offsetof(struct gwsim_static, f), sizeof(((struct gwsim_static *)0)->f), 0, 0}
#define U(k, f, lo, hi) {k, K_UINT, offsetof(struct gwsim_static, f), 0, lo, hi}
#define D(k, f, lo, hi) {k, K_DBL, offsetof(struct gwsim_static, f), 0, lo, hi}
#define B(k, f) {k, K_BOOL, offsetof(struct gwsim_static, f), 0, 0, 1}

/*
 * Ranges: what any board NVML describes can have, with room (docs/SIMULATOR.md
 * lists them). Memory up to 16 TiB in MiB, power up to 10 kW in mW, clocks
 * up to 50 GHz (GDDR memory clocks pass 11 GHz already), temperatures
 * 0..200 C; all well inside unsigned int, so no value wraps on its way in.
 */
#define MIB_MAX 16777216.0 /* 16 TiB */
#define MW_MAX 10000000.0  /* 10 kW */
#define MHZ_MAX 50000.0
#define TEMP_MAX 200.0

static const struct skey skeys[] = {
	S("name", name), S("serial", serial), S("uuid", uuid), S("bus_id", bus_id), S("vbios", vbios),
	S("board_part", board_part), S("inforom_img", inforom_img), S("inforom_oem", inforom_oem),
	S("inforom_ecc", inforom_ecc), S("inforom_pwr", inforom_pwr),
	U("arch", arch, 0, 64), U("cc_major", cc_major, 0, 99), U("cc_minor", cc_minor, 0, 99),
	U("minor", minor, 0, 1023),
	U("pci_device_id", pci_device_id, 0, 4294967295.0), U("pci_subsys_id", pci_subsys_id, 0, 4294967295.0),
	U("pcie_gen", pcie_gen, 1, 8), U("pcie_gen_idle", pcie_gen_idle, 1, 8), U("pcie_gen_max", pcie_gen_max, 1, 8),
	U("pcie_width", pcie_width, 1, 32), U("pcie_width_max", pcie_width_max, 1, 32),
	U("mem_total_mib", mem_total_mib, 1, MIB_MAX), U("mem_reserved_mib", mem_reserved_mib, 0, MIB_MAX),
	U("bar1_total_mib", bar1_total_mib, 0, MIB_MAX), U("bar1_used_mib", bar1_used_mib, 0, MIB_MAX),
	U("mem_base_mib", mem_base_mib, 0, MIB_MAX), U("mem_free_extra_mib", mem_free_extra_mib, 0, MIB_MAX),
	U("power_default_mw", power_default_mw, 0, MW_MAX), U("power_min_mw", power_min_mw, 0, MW_MAX),
	U("power_max_mw", power_max_mw, 0, MW_MAX), U("power_limit_mw", power_limit_mw, 0, MW_MAX),
	U("power_idle_mw", power_idle_mw, 0, MW_MAX), U("power_full_mw", power_full_mw, 0, MW_MAX),
	U("clock_max_sm_mhz", clk_max_sm, 1, MHZ_MAX), U("clock_max_mem_mhz", clk_max_mem, 1, MHZ_MAX),
	U("clock_max_video_mhz", clk_max_video, 0, MHZ_MAX), U("clock_idle_sm_mhz", clk_idle_sm, 0, MHZ_MAX),
	U("clock_idle_mem_mhz", clk_idle_mem, 0, MHZ_MAX), U("clock_idle_video_mhz", clk_idle_video, 0, MHZ_MAX),
	U("clock_busy_video_mhz", clk_busy_video, 0, MHZ_MAX), U("clock_busy_mem_mhz", clk_busy_mem, 0, MHZ_MAX),
	U("clock_app_sm_mhz", clk_app_sm, 0, MHZ_MAX), U("clock_app_mem_mhz", clk_app_mem, 0, MHZ_MAX),
	U("pstate_idle", pstate_idle, 0, 15), U("pstate_busy", pstate_busy, 0, 15),
	U("temp_shutdown_c", temp_shutdown, 0, TEMP_MAX), U("temp_slowdown_c", temp_slowdown, 0, TEMP_MAX),
	U("temp_gpu_max_c", temp_gpu_max, 0, TEMP_MAX), U("temp_mem_max_c", temp_mem_max, 0, TEMP_MAX),
	U("temp_target_c", temp_target, 0, TEMP_MAX),
	D("temp_ambient_c", temp_ambient, -50, 100), D("thermal_r_c_per_w", thermal_r, 0, 10),
	D("thermal_tau_s", thermal_tau, 0.01, 3600), D("mem_temp_base_c", mem_temp_base, -50, 100),
	D("mem_temp_r_c_per_w", mem_temp_r, 0, 10), B("has_mem_temp", has_mem_temp),
	D("tokens_per_s", tokens_per_s, 0, 1e9), D("mem_bound", mem_bound, 0, 1),
	U("fans", fans, 0, 32), U("fan_min_pct", fan_min_pct, 0, 100), U("nvlinks", nvlinks, 0, 18),
	D("nvlink_gbps", nvlink_gbps, 0, 1000), U("nvlink_inactive", nvlink_inactive, 0, 18),
	S("cpu_affinity", cpu_affinity), U("numa_node", numa_node, 0, 63),
	B("ecc", ecc), B("mig_capable", mig_capable), B("mig_mode", mig_mode), B("gpm", gpm),
	B("persistence", persistence), B("display_active", display_active), B("display_mode", display_mode),
	B("accounting", accounting), U("accounting_buffer", accounting_buffer, 0, 1000000),
	U("compute_mode", compute_mode, 0, 3),
	B("gsp", gsp), B("retired_pages", retired_pages), B("remap", remap), U("remap_banks", remap_banks, 0, 1000000),
	{"supported_reasons", K_HEX64, offsetof(struct gwsim_static, supported_reasons), 0, 0, 0},
	B("enc_supported", enc_supported),
	U("brand", brand, 0, 16), {"pdi", K_HEX64, offsetof(struct gwsim_static, pdi), 0, 0, 0},
	B("multi_gpu_board", multi_gpu_board), U("module_id", module_id, 0, 1024),
	U("board_id", board_id, 0, 4294967295.0), U("addressing", addressing, 0, 2),
	U("virt_mode", virt_mode, 0, 4), B("c2c", c2c), U("pci_base_class", pci_base_class, 0, 255),
	U("pci_sub_class", pci_sub_class, 0, 255), S("gpu_part", gpu_part),
	U("pcie_gen_host_max", pcie_gen_host_max, 0, 8), U("atomics_out", atomics_out, 0, 255),
	U("atomics_in", atomics_in, 0, 255), B("tlimit", tlimit), B("mem_power", mem_power), B("fabric", fabric),
	B("sparse", sparse), B("edpp", edpp), B("repair", repair), B("unrepairable", unrepairable),
};

static const char *const pin_keys[GWSIM_PIN__COUNT] = {
#define GWSIM_PIN_KEY(id, key) key,
	GWSIM_PIN_LIST(GWSIM_PIN_KEY)
#undef GWSIM_PIN_KEY
};

/* What each pinned value may be; counters (energy, violations) stay
 * below 2^53 so the double holds them exactly and the cast to an NVML
 * unsigned long long is defined. */
#define COUNT_MAX 9007199254740992.0 /* 2^53 */
static const struct {
	double lo, hi;
} pin_range[GWSIM_PIN__COUNT] = {
	[GWSIM_PIN_TEMP] = {0, TEMP_MAX},          [GWSIM_PIN_MEM_TEMP] = {0, TEMP_MAX},
	[GWSIM_PIN_POWER] = {0, MW_MAX},           [GWSIM_PIN_POWER_AVG] = {0, MW_MAX},
	[GWSIM_PIN_POWER_INSTANT] = {0, MW_MAX},   [GWSIM_PIN_ENERGY] = {0, COUNT_MAX},
	[GWSIM_PIN_UTIL_GPU] = {0, 100},           [GWSIM_PIN_UTIL_MEM] = {0, 100},
	[GWSIM_PIN_UTIL_ENC] = {0, 100},           [GWSIM_PIN_UTIL_DEC] = {0, 100},
	[GWSIM_PIN_UTIL_JPG] = {0, 100},           [GWSIM_PIN_UTIL_OFA] = {0, 100},
	[GWSIM_PIN_CLK_SM] = {0, MHZ_MAX},         [GWSIM_PIN_CLK_GFX] = {0, MHZ_MAX},
	[GWSIM_PIN_CLK_MEM] = {0, MHZ_MAX},        [GWSIM_PIN_CLK_VIDEO] = {0, MHZ_MAX},
	[GWSIM_PIN_PSTATE] = {0, 15},              [GWSIM_PIN_FAN] = {0, 100},
	[GWSIM_PIN_MEM_USED] = {0, MIB_MAX},       [GWSIM_PIN_REASONS] = {0, COUNT_MAX},
	[GWSIM_PIN_PCIE_TX] = {0, 1e9},            [GWSIM_PIN_PCIE_RX] = {0, 1e9},
	[GWSIM_PIN_PCIE_GEN] = {1, 8},             [GWSIM_PIN_VIOL_POWER] = {0, COUNT_MAX},
	[GWSIM_PIN_VIOL_THERMAL] = {0, COUNT_MAX}, [GWSIM_PIN_VIOL_SYNC] = {0, COUNT_MAX},
	[GWSIM_PIN_VIOL_SW_THERM] = {0, COUNT_MAX}, [GWSIM_PIN_VIOL_HW_THERM] = {0, COUNT_MAX},
	[GWSIM_PIN_VIOL_HW_BRAKE] = {0, COUNT_MAX}, [GWSIM_PIN_ENC_SESSIONS] = {0, 1024},
	[GWSIM_PIN_ENC_FPS] = {0, 1e6},            [GWSIM_PIN_ENC_LATENCY] = {0, 1e9},
	[GWSIM_PIN_MEM_POWER] = {0, MW_MAX},       [GWSIM_PIN_MARGIN] = {-TEMP_MAX, TEMP_MAX},
};

static const struct {
	const char *name;
	unsigned int arch;
} arches[] = {
	{"kepler", NVML_DEVICE_ARCH_KEPLER}, {"maxwell", NVML_DEVICE_ARCH_MAXWELL}, {"pascal", NVML_DEVICE_ARCH_PASCAL},
	{"volta", NVML_DEVICE_ARCH_VOLTA},   {"turing", NVML_DEVICE_ARCH_TURING},   {"ampere", NVML_DEVICE_ARCH_AMPERE},
	{"ada", NVML_DEVICE_ARCH_ADA},       {"hopper", NVML_DEVICE_ARCH_HOPPER},   {"blackwell", NVML_DEVICE_ARCH_BLACKWELL},
};

int gwsim_parse_bool(const char *v, unsigned int *out)
{
	static const char *const yes[] = {"1", "yes", "on", "true", "enabled"};
	static const char *const no[] = {"0", "no", "off", "false", "disabled"};
	for (size_t i = 0; i < 5; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return *out = 1, 0;
		if (strcasecmp(v, no[i]) == 0)
			return *out = 0, 0;
	}
	return -1;
}

/* A finite number: "nan", "inf" and 1e999 are no value a board has. */
int gwsim_parse_num(const char *v, double *out)
{
	char *end;
	errno = 0;
	if (strncasecmp(v, "0x", 2) == 0) {
		*out = (double)strtoull(v, &end, 16);
	} else {
		*out = strtod(v, &end);
	}
	return *v && !*end && errno != ERANGE && isfinite(*out) ? 0 : -1;
}

int gwsim_parse_range(const char *key, const char *v, double lo, double hi, double *out, char *err, size_t errlen)
{
	if (gwsim_parse_num(v, out) != 0)
		return snprintf(err, errlen, "%s wants a number %.16g..%.16g, not \"%s\"", key, lo, hi, v), -1;
	if (!(*out >= lo && *out <= hi))
		return snprintf(err, errlen, "%s = %s is out of range (%.16g..%.16g)", key, v, lo, hi), -1;
	return 0;
}

int gwsim_parse_u64(const char *key, const char *v, unsigned long long *out, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (!*v || *end || v[strspn(v, " \t")] == '-' || v[strspn(v, " \t")] == '+')
		return snprintf(err, errlen, "%s wants a number 0..18446744073709551615, not \"%s\"", key, v), -1;
	if (errno == ERANGE)
		return snprintf(err, errlen, "%s = %s is out of range (0..18446744073709551615)", key, v), -1;
	*out = x;
	return 0;
}

static int set_static(struct gwsim_static *st, const struct skey *k, const char *v, char *err, size_t errlen)
{
	char *p = (char *)st + k->off;
	double num;
	switch (k->type) {
	case K_STR:
		if (strlen(v) >= k->size)
			return snprintf(err, errlen, "%s is longer than %zu characters", k->key, k->size - 1), -1;
		memcpy(p, v, strlen(v) + 1);
		return 0;
	case K_BOOL:
		if (gwsim_parse_bool(v, (unsigned int *)(void *)p) != 0)
			return snprintf(err, errlen, "%s wants yes or no, not \"%s\"", k->key, v), -1;
		return 0;
	case K_HEX64: {
		unsigned long long x;
		if (gwsim_parse_u64(k->key, v, &x, err, errlen) != 0)
			return -1;
		memcpy(p, &x, sizeof(x));
		return 0;
	}
	case K_UINT:
		if (strcmp(k->key, "arch") == 0) {
			for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
				if (strcasecmp(v, arches[i].name) == 0)
					return *(unsigned int *)(void *)p = arches[i].arch, 0;
		}
		if (gwsim_parse_range(k->key, v, k->lo, k->hi, &num, err, errlen) != 0)
			return -1;
		*(unsigned int *)(void *)p = (unsigned int)num;
		return 0;
	case K_DBL:
		if (gwsim_parse_range(k->key, v, k->lo, k->hi, &num, err, errlen) != 0)
			return -1;
		*(double *)(void *)p = num;
		return 0;
	}
	return -1;
}

/* 1: handled, 0: not a table key, -1: bad value (err says why). */
/* One value, or up to GWSIM_SEQ_MAX separated by blanks or commas: one per
 * virtual second (sim.h). */
static int set_pin(struct gwsim_gpu *g, int pin, const char *key, const char *v, char *err, size_t errlen)
{
	unsigned int n = 0;
	const char *p = v;
	for (;;) {
		p += strspn(p, " \t,");
		if (!*p)
			break;
		char word[64];
		size_t len = strcspn(p, " \t,");
		if (len >= sizeof(word) || n >= GWSIM_SEQ_MAX)
			return snprintf(err, errlen, "%s: at most %d values of up to 63 characters", key, GWSIM_SEQ_MAX), -1;
		memcpy(word, p, len);
		word[len] = '\0';
		p += len;
		const char *w = word;
		if (pin == GWSIM_PIN_PSTATE && (*w == 'P' || *w == 'p'))
			w++;
		if (gwsim_parse_range(key, w, pin_range[pin].lo, pin_range[pin].hi, &g->pins.v[pin][n], err, errlen) != 0)
			return -1;
		n++;
	}
	if (n == 0)
		return snprintf(err, errlen, "%s wants a number", key), -1;
	g->pins.n[pin] = (unsigned char)n;
	g->pins.mask |= 1ULL << pin;
	return 1;
}

int gwsim_key_set(struct gwsim_gpu *g, const char *key, const char *v, char *err, size_t errlen)
{
	if (strcmp(key, "cc") == 0) {
		unsigned int a, b;
		int used = 0;
		if (strspn(v, "0123456789.") != strlen(v) || sscanf(v, "%u.%u%n", &a, &b, &used) != 2 || v[used] ||
		    a > 99 || b > 99)
			return snprintf(err, errlen, "cc wants MAJOR.MINOR, each 0..99, not \"%s\"", v), -1;
		g->st.cc_major = a;
		g->st.cc_minor = b;
		return 1;
	}
	for (size_t i = 0; i < sizeof(skeys) / sizeof(skeys[0]); i++)
		if (strcmp(key, skeys[i].key) == 0)
			return set_static(&g->st, &skeys[i], v, err, errlen) == 0 ? 1 : -1;
	for (int i = 0; i < GWSIM_PIN__COUNT; i++) {
		if (strcmp(key, pin_keys[i]) != 0)
			continue;
		return set_pin(g, i, key, v, err, errlen);
	}
	return 0;
}

const char *gwsim_key_name(size_t i)
{
	return i < sizeof(skeys) / sizeof(skeys[0]) ? skeys[i].key : NULL;
}

/*
 * scenario_keys.c - the table of per-GPU scenario keys: every static value
 * a board has (struct gwsim_static) and every pinnable dynamic value
 * (GWSIM_PIN_LIST), so a scenario can reproduce any capture. The parser
 * (scenario.c) and docs/SIMULATOR.md both follow this table.
 */
#include "sim.h"
#include "scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum ktype { K_STR, K_UINT, K_DBL, K_BOOL, K_HEX64 };

struct skey {
	const char *key;
	enum ktype type;
	size_t off;
	size_t size; /* K_STR: buffer size */
};

#define S(k, f) {k, K_STR, offsetof(struct gwsim_static, f), sizeof(((struct gwsim_static *)0)->f)}
#define U(k, f) {k, K_UINT, offsetof(struct gwsim_static, f), 0}
#define D(k, f) {k, K_DBL, offsetof(struct gwsim_static, f), 0}
#define B(k, f) {k, K_BOOL, offsetof(struct gwsim_static, f), 0}

static const struct skey skeys[] = {
	S("name", name), S("serial", serial), S("uuid", uuid), S("bus_id", bus_id), S("vbios", vbios),
	S("board_part", board_part), S("inforom_img", inforom_img), S("inforom_oem", inforom_oem),
	S("inforom_ecc", inforom_ecc), S("inforom_pwr", inforom_pwr),
	U("arch", arch), U("cc_major", cc_major), U("cc_minor", cc_minor), U("minor", minor),
	U("pci_device_id", pci_device_id), U("pci_subsys_id", pci_subsys_id),
	U("pcie_gen", pcie_gen), U("pcie_gen_idle", pcie_gen_idle), U("pcie_gen_max", pcie_gen_max),
	U("pcie_width", pcie_width), U("pcie_width_max", pcie_width_max),
	U("mem_total_mib", mem_total_mib), U("mem_reserved_mib", mem_reserved_mib),
	U("bar1_total_mib", bar1_total_mib), U("bar1_used_mib", bar1_used_mib), U("mem_base_mib", mem_base_mib),
	U("mem_free_extra_mib", mem_free_extra_mib),
	U("power_default_mw", power_default_mw), U("power_min_mw", power_min_mw), U("power_max_mw", power_max_mw),
	U("power_limit_mw", power_limit_mw), U("power_idle_mw", power_idle_mw), U("power_full_mw", power_full_mw),
	U("clock_max_sm_mhz", clk_max_sm), U("clock_max_mem_mhz", clk_max_mem), U("clock_max_video_mhz", clk_max_video),
	U("clock_idle_sm_mhz", clk_idle_sm), U("clock_idle_mem_mhz", clk_idle_mem),
	U("clock_idle_video_mhz", clk_idle_video), U("clock_busy_video_mhz", clk_busy_video),
	U("clock_busy_mem_mhz", clk_busy_mem), U("clock_app_sm_mhz", clk_app_sm), U("clock_app_mem_mhz", clk_app_mem),
	U("pstate_idle", pstate_idle), U("pstate_busy", pstate_busy),
	U("temp_shutdown_c", temp_shutdown), U("temp_slowdown_c", temp_slowdown), U("temp_gpu_max_c", temp_gpu_max),
	U("temp_mem_max_c", temp_mem_max), U("temp_target_c", temp_target),
	D("temp_ambient_c", temp_ambient), D("thermal_r_c_per_w", thermal_r), D("thermal_tau_s", thermal_tau),
	D("mem_temp_base_c", mem_temp_base), D("mem_temp_r_c_per_w", mem_temp_r), B("has_mem_temp", has_mem_temp),
	U("fans", fans), U("fan_min_pct", fan_min_pct), U("nvlinks", nvlinks), D("nvlink_gbps", nvlink_gbps),
	B("ecc", ecc), B("mig_capable", mig_capable), B("mig_mode", mig_mode), B("gpm", gpm),
	B("persistence", persistence), B("display_active", display_active), B("display_mode", display_mode),
	B("accounting", accounting), U("accounting_buffer", accounting_buffer), U("compute_mode", compute_mode),
	B("gsp", gsp), B("retired_pages", retired_pages), B("remap", remap), U("remap_banks", remap_banks),
	{"supported_reasons", K_HEX64, offsetof(struct gwsim_static, supported_reasons), 0},
	B("enc_supported", enc_supported),
};

static const char *const pin_keys[GWSIM_PIN__COUNT] = {
#define GWSIM_PIN_KEY(id, key) key,
	GWSIM_PIN_LIST(GWSIM_PIN_KEY)
#undef GWSIM_PIN_KEY
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

int gwsim_parse_num(const char *v, double *out)
{
	char *end;
	if (strncasecmp(v, "0x", 2) == 0) {
		*out = (double)strtoull(v, &end, 16);
	} else {
		*out = strtod(v, &end);
	}
	return *v && !*end ? 0 : -1;
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
		char *end;
		unsigned long long x = strtoull(v, &end, 0);
		if (!*v || *end)
			return snprintf(err, errlen, "%s wants a number, not \"%s\"", k->key, v), -1;
		memcpy(p, &x, sizeof(x));
		return 0;
	}
	case K_UINT:
		if (strcmp(k->key, "arch") == 0) {
			for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
				if (strcasecmp(v, arches[i].name) == 0)
					return *(unsigned int *)(void *)p = arches[i].arch, 0;
		}
		if (gwsim_parse_num(v, &num) != 0 || num < 0)
			return snprintf(err, errlen, "%s wants a number, not \"%s\"", k->key, v), -1;
		*(unsigned int *)(void *)p = (unsigned int)num;
		return 0;
	case K_DBL:
		if (gwsim_parse_num(v, &num) != 0)
			return snprintf(err, errlen, "%s wants a number, not \"%s\"", k->key, v), -1;
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
		if (gwsim_parse_num(w, &g->pins.v[pin][n]) != 0)
			return snprintf(err, errlen, "%s wants numbers, not \"%s\"", key, word), -1;
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
		if (sscanf(v, "%u.%u", &a, &b) != 2)
			return snprintf(err, errlen, "cc wants MAJOR.MINOR, not \"%s\"", v), -1;
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

/*
 * fuzz_import.c - `gpuwatch import`: nvidia-smi CSV logs (with a header,
 * headerless with a field list, the `======= date =======` loop logs),
 * OpenMetrics text, the default table, -q reports, dmon and pmon logs,
 * told apart by the first byte of the input here (the command tells them
 * by the first lines: gw_import_sniff, which every input also goes
 * through).
 *
 * Invariants: every emitted sample has a name label, labels that are
 * NUL-terminated, and a time stamp the store accepts (ms within 1970..2199
 * for OpenMetrics; any int64 is representable for CSV logs but never a
 * wrapped negative from a bad date); the counts add up.
 */
#include "fuzz.h"

#include "ingest/import_om.h"
#include "ingest/import_smi.h"
#include "ingest/import_text.h"

struct sink {
	size_t samples;
};

static int emit(void *ctx, const struct gw_lpair *l, size_t n, int64_t t_ms, double v)
{
	struct sink *s = ctx;
	fuzz_check(n > 0);
	bool named = false;
	for (size_t i = 0; i < n; i++) {
		fuzz_check(l[i].name && l[i].value);
		named |= strcmp(l[i].name, "__name__") == 0;
	}
	fuzz_check(named);
	fuzz_check(t_ms >= 0);
	s->samples++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 1 || n > 1 << 16)
		return 0;
	int mode = d[0] % 7;
	const char *seen = NULL;
	enum gw_import_format sniffed = gw_import_sniff((const char *)d + 1, n - 1, &seen);
	fuzz_check(sniffed != GW_IMPORT_UNKNOWN || (seen && *seen));
	FILE *in = fmemopen((void *)(d + 1), n - 1, "r");
	if (!in)
		return 0;
	struct sink s = {0};
	struct gw_import_opts o = {.emit = emit, .ctx = &s, .instance = "fuzz", .job = "gw"};
	if (mode == 1)
		o.fields = "timestamp,index,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw";
	struct gw_import_stats st = {0};
	struct gw_err err;
	gw_err_clear(&err);
	if (mode >= 5) { /* dmon/pmon without time columns need a start */
		o.has_start = true;
		o.start_ms = 1796205600000LL;
		o.interval_ms = 1000;
	}
	switch (mode) {
	case 2:
		gw_import_om(in, &o, &st, &err);
		break;
	case 3:
		gw_import_table(in, &o, &st, &err);
		break;
	case 4:
		gw_import_query(in, &o, &st, &err);
		break;
	case 5:
		gw_import_dmon(in, &o, &st, &err);
		break;
	case 6:
		gw_import_pmon(in, &o, &st, &err);
		break;
	default:
		gw_import_smi(in, &o, &st, &err);
	}
	fclose(in);
	fuzz_check(st.samples == s.samples);
	return 0;
}

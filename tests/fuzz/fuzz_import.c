/*
 * fuzz_import.c - `gpuwatch import`: nvidia-smi CSV logs (with a header,
 * headerless with a field list, the `======= date =======` loop logs) and
 * OpenMetrics text, told apart by the first byte of the input here (the
 * command tells them by the first line).
 *
 * Invariants: every emitted sample has a name label, labels that are
 * NUL-terminated, and a time stamp the store accepts (ms within 1970..2199
 * for OpenMetrics; any int64 is representable for CSV logs but never a
 * wrapped negative from a bad date); the counts add up.
 */
#include "fuzz.h"

#include "ingest/import_om.h"
#include "ingest/import_smi.h"

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
	int mode = d[0] % 3;
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
	if (mode == 2)
		gw_import_om(in, &o, &st, &err);
	else
		gw_import_smi(in, &o, &st, &err);
	fclose(in);
	fuzz_check(st.samples == s.samples);
	return 0;
}

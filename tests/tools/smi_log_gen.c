/*
 * smi_log_gen - a large nvidia-smi log for tests/integration/import_large.sh
 * and bench/import.sh, written as it goes (nothing is kept in memory).
 *
 *   smi_log_gen BYTES [GPUS]
 *
 * Writes to standard output what `nvidia-smi --query-gpu=<FIELDS>
 * --format=csv -l 1` prints on a busy training node of GPUS H200s (default
 * 8): the header once, then one row per GPU every second, each with its own
 * millisecond time stamp, `[N/A]` for the fan an H200 does not have, until
 * at least BYTES are out (whole seconds, so every GPU has as many rows).
 * Time starts at 2026/07/01 00:00:00 and is printed as UTC: import with
 * TZ=UTC. Values are a fixed pseudo-random walk, the same on every run.
 *
 * At the end, one line on standard error for the checks:
 *   seconds S rows R bytes B first T0 last T1 temp0 X power0 Y
 * with T0, T1 the first and last row's time in ms since the epoch and X, Y
 * the last temperature.gpu (C) and power.draw (W) written for GPU 0.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_GPUS 64
#define START_S 1782864000LL /* 2026-07-01 00:00:00 UTC */

static const char HEADER[] =
	"timestamp, index, name, uuid, pci.bus_id, pstate, fan.speed [%], temperature.gpu, utilization.gpu [%], "
	"utilization.memory [%], memory.total [MiB], memory.used [MiB], memory.free [MiB], power.draw [W], "
	"power.limit [W], clocks.current.sm [MHz], clocks.current.memory [MHz]\n";

struct gpu {
	int temp, util, mutil, used;
	int power_cw; /* centiwatts: nvidia-smi prints two decimals */
	char uuid[48], bus[20];
};

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One step of a bounded random walk. */
static int walk(uint64_t *s, int v, int step, int lo, int hi)
{
	v += (int)(next(s) % (uint64_t)(2 * step + 1)) - step;
	return v < lo ? lo : v > hi ? hi : v;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: smi_log_gen BYTES [GPUS]\n");
		return 2;
	}
	uint64_t want = strtoull(argv[1], NULL, 10);
	int ngpu = argc > 2 ? atoi(argv[2]) : 8;
	if (ngpu < 1 || ngpu > MAX_GPUS) {
		fprintf(stderr, "smi_log_gen: GPUS is 1..%d\n", MAX_GPUS);
		return 2;
	}
	static char obuf[1 << 20];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	struct gpu g[MAX_GPUS];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < ngpu; i++) {
		g[i] = (struct gpu){.temp = 60, .util = 95, .mutil = 60, .used = 70000, .power_cw = 60000};
		uint64_t a = next(&seed), b = next(&seed), c = next(&seed);
		snprintf(g[i].uuid, sizeof(g[i].uuid), "GPU-%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32),
			 (unsigned)(a & 0xffff), (unsigned)(b >> 48), (unsigned)(b & 0xffff),
			 (unsigned long long)(c & 0xffffffffffffull));
		snprintf(g[i].bus, sizeof(g[i].bus), "00000000:%02X:00.0", 0x18 + 0x10 * i);
	}
	uint64_t bytes = fputs(HEADER, stdout) < 0 ? 0 : sizeof(HEADER) - 1;
	uint64_t rows = 0, secs = 0;
	char line[512];
	while (bytes < want) {
		time_t t = (time_t)(START_S + (int64_t)secs);
		struct tm tm;
		gmtime_r(&t, &tm);
		char ts[32];
		strftime(ts, sizeof(ts), "%Y/%m/%d %H:%M:%S", &tm);
		for (int i = 0; i < ngpu; i++) {
			struct gpu *p = &g[i];
			p->temp = walk(&seed, p->temp, 1, 45, 78);
			p->util = walk(&seed, p->util, 3, 70, 100);
			p->mutil = walk(&seed, p->mutil, 4, 20, 90);
			p->used = walk(&seed, p->used, 64, 60000, 80000);
			p->power_cw = walk(&seed, p->power_cw, 900, 30000, 70000);
			int sm = 1980 - (int)(next(&seed) % 4) * 15;
			int n = snprintf(line, sizeof(line),
					 "%s.%03d, %d, NVIDIA H200, %s, %s, P0, [N/A], %d, %d %%, %d %%, 143771 MiB, "
					 "%d MiB, %d MiB, %d.%02d W, 700.00 W, %d MHz, 3201 MHz\n",
					 ts, 100 + 3 * i, i, p->uuid, p->bus, p->temp, p->util, p->mutil, p->used,
					 143771 - 512 - p->used, p->power_cw / 100, p->power_cw % 100, sm);
			if (fwrite(line, 1, (size_t)n, stdout) != (size_t)n) {
				perror("smi_log_gen: write");
				return 1;
			}
			bytes += (uint64_t)n;
			rows++;
		}
		secs++;
	}
	if (fflush(stdout) != 0) {
		perror("smi_log_gen: write");
		return 1;
	}
	int64_t first = START_S * 1000 + 100, last = (START_S + (int64_t)secs - 1) * 1000 + 100;
	fprintf(stderr, "seconds %" PRIu64 " rows %" PRIu64 " bytes %" PRIu64 " first %" PRId64 " last %" PRId64
			" temp0 %d power0 %d.%02d\n",
		secs, rows, bytes, first, last, g[0].temp, g[0].power_cw / 100, g[0].power_cw % 100);
	return 0;
}

/* The chunk codec: exact round trips, compactness, corruption detection. */
#include "core/crc32.h"
#include "core/err.h"
#include "harness.h"
#include "promql/engine.h"
#include "store/bits.h"
#include "store/codec.h"
#include "store/rollup.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define N 1000

static uint64_t bits_of(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	return b;
}

/* Encode, decode, compare bit for bit; returns encoded size. */
static size_t roundtrip(const int64_t *t, const double *v, size_t n)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 24);
	CHECK_INT_EQ(gw_chunk_encode(t, v, n, &b), 0);
	int64_t *t2 = calloc(n, sizeof(*t2));
	double *v2 = calloc(n, sizeof(*v2));
	size_t m = 0;
	CHECK_INT_EQ(gw_chunk_decode((const uint8_t *)b.data, b.len, t2, v2, n, &m), 0);
	CHECK_INT_EQ(m, n);
	CHECK_INT_EQ(gw_chunk_count((const uint8_t *)b.data, b.len), (long)n);
	size_t bad = 0;
	for (size_t i = 0; i < m; i++)
		bad += t2[i] != t[i] || bits_of(v2[i]) != bits_of(v[i]);
	CHECK_INT_EQ(bad, 0);
	free(t2);
	free(v2);
	size_t len = b.len;
	gw_buf_release(&b);
	return len;
}

static void regular_times(int64_t *t, size_t n, int64_t start, int64_t step)
{
	for (size_t i = 0; i < n; i++)
		t[i] = start + (int64_t)i * step;
}

/*
 * The bit writer and reader under the codec: fields of every width 1..64
 * and runs of ones (up to a cap, with and without their terminating 0)
 * read back as written at every bit alignment; reading past the end gives
 * 0 and sets overrun, and a run of ones stops at the end.
 */
static void test_bits_round_trip(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;
	enum { K = 5000 };
	static unsigned width[K], kind[K];
	static uint64_t val[K];
	struct gw_buf b;
	gw_buf_init(&b, 1 << 20);
	struct gw_bitw w;
	gw_bitw_init(&w, &b);
	size_t total = 0;
	for (int i = 0; i < K; i++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		kind[i] = (unsigned)(seed % 3);
		width[i] = 1 + (unsigned)((seed >> 8) % 64);
		val[i] = seed >> 3;
		if (kind[i] == 0) { /* a field */
			if (width[i] < 64)
				val[i] &= (1ULL << width[i]) - 1;
			gw_bitw_put(&w, val[i], width[i]);
			total += width[i];
		} else { /* val ones of at most width, then a 0 unless capped */
			val[i] %= width[i] + 1;
			for (uint64_t k = 0; k < val[i]; k++)
				gw_bitw_put(&w, 1, 1);
			if (val[i] < width[i])
				gw_bitw_put(&w, 0, 1);
			total += val[i] + (val[i] < width[i]);
		}
	}
	CHECK_INT_EQ(gw_bitw_flush(&w), 0);
	CHECK_INT_EQ(b.len, (total + 7) / 8);
	struct gw_bitr r;
	gw_bitr_init(&r, (const uint8_t *)b.data, b.len);
	int bad = 0;
	for (int i = 0; i < K; i++)
		if (kind[i] == 0)
			bad += gw_bitr_get(&r, width[i]) != val[i];
		else
			bad += gw_bitr_ones(&r, width[i]) != val[i];
	CHECK_INT_EQ(bad, 0);
	CHECK(!r.overrun);
	CHECK_INT_EQ(r.pos, total);
	/* Past the end: the padding reads as zeros, then nothing. */
	size_t pad = b.len * 8 - total;
	CHECK_INT_EQ(gw_bitr_get(&r, (unsigned)pad), 0);
	CHECK(!r.overrun);
	CHECK_INT_EQ(gw_bitr_get(&r, 1), 0);
	CHECK(r.overrun);
	/* A run of ones that meets the end stops there, with overrun set. */
	const uint8_t ff[3] = {0xff, 0xff, 0xff};
	gw_bitr_init(&r, ff, 3);
	CHECK_INT_EQ(gw_bitr_get(&r, 3), 7);
	CHECK_INT_EQ(gw_bitr_ones(&r, 64), 21);
	CHECK(r.overrun);
	gw_bitr_init(&r, ff, 3);
	CHECK_INT_EQ(gw_bitr_ones(&r, 10), 10); /* capped: nothing more consumed */
	CHECK_INT_EQ(r.pos, 10);
	CHECK_INT_EQ(gw_bitr_get(&r, 14), 0x3fff);
	CHECK(!r.overrun);
	/* Elias gamma codes of every size, at shifting alignments (fast and slow reads alike). */
	gw_buf_reset(&b);
	gw_bitw_init(&w, &b);
	uint64_t gv[200];
	for (int i = 0; i < 200; i++) {
		gv[i] = ((uint64_t)1 << (i % 63)) + (uint64_t)i * 7919u % ((uint64_t)1 << (i % 63));
		gw_bitw_put(&w, (uint64_t)i, (unsigned)(i % 5)); /* shift the next code's alignment */
		gw_bitw_gamma(&w, gv[i]);
	}
	CHECK_INT_EQ(gw_bitw_flush(&w), 0);
	gw_bitr_init(&r, (const uint8_t *)b.data, b.len);
	bad = 0;
	for (int i = 0; i < 200; i++) {
		bad += gw_bitr_get(&r, (unsigned)(i % 5)) != ((uint64_t)i & ((1u << (i % 5)) - 1));
		bad += gw_bitr_gamma(&r) != gv[i];
	}
	CHECK_INT_EQ(bad, 0);
	CHECK(!r.overrun);
	gw_buf_release(&b);
}

static void test_constant_series_is_tiny(void)
{
	int64_t t[N];
	double v[N];
	regular_times(t, N, 1751580645000, 1000);
	for (size_t i = 0; i < N; i++)
		v[i] = 143771.0;
	size_t len = roundtrip(t, v, N);
	/* Runs: a header, two short codes and the CRC, whatever N is. */
	CHECK(len < 32);
	/* A counter rising by the same step each sample is as small (deltas of deltas). */
	for (size_t i = 0; i < N; i++)
		v[i] = 1e9 + 612340.0 * (double)i;
	CHECK(roundtrip(t, v, N) < 40);
	/* A flat series with a few steps costs per step, not per sample. */
	for (size_t i = 0; i < N; i++)
		v[i] = i < 300 ? 1410 : i < 700 ? 1980 : 1755;
	CHECK(roundtrip(t, v, N) < 48);
}

static void test_gpu_like_integers(void)
{
	int64_t t[N];
	double v[N];
	regular_times(t, N, 1751580645000, 1000);
	unsigned int seed = 7;
	double temp = 52;
	for (size_t i = 0; i < N; i++) {
		if (rand_r(&seed) % 10 == 0)
			temp += (rand_r(&seed) % 3) - 1.0;
		v[i] = temp;
	}
	size_t len = roundtrip(t, v, N);
	CHECK((double)len / N < 0.35); /* bytes per sample */
}

static void test_decimals_and_power(void)
{
	int64_t t[N];
	double v[N];
	regular_times(t, N, 0, 1000);
	unsigned int seed = 3;
	for (size_t i = 0; i < N; i++)
		v[i] = (double)(627000 + rand_r(&seed) % 2000) / 100.0; /* watts, 2 decimals */
	roundtrip(t, v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = 0.1 * (double)(i % 7); /* not exact decimals: 0.30000000000000004 */
	roundtrip(t, v, N);
}

static void test_arbitrary_floats_use_xor(void)
{
	int64_t t[N];
	double v[N];
	regular_times(t, N, 5, 15000);
	unsigned int seed = 11;
	for (size_t i = 0; i < N; i++)
		v[i] = sin((double)i / 10.0) * 1e3 + (double)rand_r(&seed) / RAND_MAX;
	roundtrip(t, v, N);
}

static void test_specials_and_jitter(void)
{
	int64_t t[N];
	double v[N];
	unsigned int seed = 5;
	t[0] = -5000;
	for (size_t i = 1; i < N; i++)
		t[i] = t[i - 1] + 1000 + (rand_r(&seed) % 50) - 25 + ((i % 100 == 0) ? 3600000 : 0);
	uint64_t stale = 0x7ff0000000000002ULL;
	for (size_t i = 0; i < N; i++)
		v[i] = (double)(i % 100);
	memcpy(&v[10], &stale, sizeof(double));
	v[20] = NAN;
	v[30] = INFINITY;
	v[40] = -INFINITY;
	v[50] = -0.0;
	v[60] = 1e300;
	v[70] = 5e-324;
	roundtrip(t, v, N);
	/* One sample, two samples, and same time stamps. */
	roundtrip(t, v, 1);
	roundtrip(t, v, 2);
	int64_t same[3] = {7, 7, 7};
	roundtrip(same, v, 3);
	/* Extreme time stamps and deltas. */
	int64_t ext[3] = {INT64_MIN / 4, 0, INT64_MAX / 4};
	roundtrip(ext, v, 3);
}

/* Chunks written by format 1 (one code per sample) still decode. */
static void test_reads_format_1(void)
{
	static const uint8_t dec[] = {0xc7,0x00,0x0c,0x90,0xda,0xbc,0xa5,0xfa,0x65,0xd0,0x0f,0x01,0x04,0x35,0x19,0xc3,
				      0x46,0x1f,0xe4,0x9a,0x52,0x4e,0x2a,0x2a,0x4d,0xfb,0xff,0xc0,0x00,0x00,0x00,0x00,
				      0x00,0x00,0x7f,0xe9,0xc3,0x21};
	int64_t t[12];
	double v[12];
	size_t n = 0;
	CHECK_INT_EQ(gw_chunk_decode(dec, sizeof(dec), t, v, 12, &n), 0);
	CHECK_INT_EQ(n, 12);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t want_t = 1751580645000 + 1000 * (int64_t)i + (i == 7 ? 13 : 0);
		double want_v = 50 + (i % 3 == 0 ? 1 : 0) + (i == 5 ? 0.5 : 0);
		bad += t[i] != want_t || (i == 9 ? !isnan(v[i]) : v[i] != want_v);
	}
	CHECK_INT_EQ(bad, 0);
	static const uint8_t xor_head[] = {0xc7,0x01,0x0c,0x90,0xda,0xbc,0xa5,0xfa,0x65,0xd0,0x0f,0x00,0x00,0x00,0x00,
					   0x00,0x00,0x00,0x00,0x04,0x35,0x19,0xc3,0x46,0x1e,0xa0,0x45,0x25,0xe2,0x49,
					   0xd7,0x6b,0x5d,0xb8,0xe2,0x1a,0x5b,0x2f,0xe1,0xca,0xf4,0x71,0xdb,0x93,0x6c,
					   0x74,0xe8,0x8c,0xaf,0x80,0x08,0x0e,0x60,0x5b,0xc9,0x98,0xc7,0x9a,0xd8,0x00,
					   0x29,0x44,0x3d,0xa2,0xd6,0x81,0xaa,0x00,0xfc,0x81,0xc1,0x0b,0x6d,0x2b,0x6c,
					   0xa0,0x3d,0x7c,0x50,0x5b,0x2b,0x81,0x4f,0x20,0x00,0xa6,0xd3,0x93,0xdb,0x9a,
					   0x15,0x28,0x03,0xdc,0xac,0xe3,0x82,0x80,0xf3,0xaa,0x80,0xf8,0xc1,0xce,0x6c,
					   0xe8,0x7d,0x02,0x80,0x03,0x8f,0xf0,0x33,0x51,0xb9,0xc1,0x40,0x40,0x1c,0x2a,
					   0x0d};
	CHECK_INT_EQ(gw_chunk_decode(xor_head, sizeof(xor_head), t, v, 12, &n), 0);
	bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += bits_of(v[i]) != bits_of(sin((double)i) * 1e3);
	CHECK_INT_EQ(n, 12);
	CHECK_INT_EQ(bad, 0);
}

/* Random mixes of runs, steps, ramps, specials and off-schedule time stamps. */
static void test_random_mixes(void)
{
	unsigned int seed = 42;
	int64_t t[N];
	double v[N];
	for (int iter = 0; iter < 300; iter++) {
		size_t n = 1 + (size_t)rand_r(&seed) % N;
		int64_t step = 1 + rand_r(&seed) % 20000;
		t[0] = (int64_t)rand_r(&seed) * 1000;
		double x = rand_r(&seed) % 1000, d = 0;
		for (size_t i = 0; i < n; i++) {
			if (i)
				t[i] = t[i - 1] + step + (rand_r(&seed) % 8 == 0 ? rand_r(&seed) % 5000 - 2500 : 0);
			if (t[i] < (i ? t[i - 1] : t[0]))
				t[i] = t[i - 1];
			switch (rand_r(&seed) % 12) {
			case 0: x += rand_r(&seed) % 100 - 50; break;
			case 1: d = rand_r(&seed) % 7; break;
			case 2: x = (double)rand_r(&seed) / 7.0; break;
			case 3: x = NAN; break;
			case 4: x = round(x) / 100.0; break;
			default: break;
			}
			if (!isnan(x))
				x += d;
			v[i] = x;
			if (isnan(x))
				x = 3;
		}
		roundtrip(t, v, n);
	}
}

/* Chunks written by format 2's decimal and XOR modes (runs, fixed prefix codes) still decode. */
static void test_reads_format_2(void)
{
	static const uint8_t deltas[] = {
	    0xc7, 0x02, 0x0c, 0x90, 0xda, 0xbc, 0xa5, 0xfa, 0x65, 0xd0, 0x0f, 0x01, 0x30, 0x6a,
	    0x33, 0x86, 0x9e, 0x1f, 0x41, 0x19, 0x59, 0x60, 0x31, 0xd9, 0x59, 0x7e, 0xff, 0xf0,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x63, 0x64, 0xf0, 0xbc, 0x9a, 0xc6};
	static const uint8_t dod[] = {0xc7, 0x02, 0x0c, 0x90, 0xda, 0xbc, 0xa5, 0xfa, 0x65, 0xd0, 0x0f, 0x81,
				      0x30, 0x6a, 0x33, 0x86, 0x9f, 0x80, 0x4c, 0x4b, 0x40, 0x3c, 0x02, 0x61,
				      0xbd, 0xbe, 0x41, 0x52, 0x71, 0x45, 0x26, 0xc3, 0xb6, 0x68};
	static const uint8_t xor_runs[] = {
	    0xc7, 0x03, 0x0c, 0x90, 0xda, 0xbc, 0xa5, 0xfa, 0x65, 0xd0, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0xd0, 0x3f, 0x30, 0x6a, 0x33, 0x86, 0x9e, 0x1e, 0xbf, 0xad, 0x25, 0xe2, 0x49, 0xd7, 0x6b, 0x5d, 0xb8,
	    0xe2, 0x1a, 0x5b, 0x2f, 0xe1, 0xca, 0xf4, 0x71, 0xdb, 0x93, 0x6c, 0x74, 0xe8, 0x8c, 0xaf, 0x87, 0xff,
	    0xf6, 0x34, 0x7a, 0xe3, 0x64, 0x91, 0x8b, 0x78, 0x3e, 0xff, 0x5d, 0xf7, 0x64, 0xea, 0x1d, 0x55, 0x9e,
	    0x00, 0xfc, 0x81, 0xc1, 0x0b, 0x6d, 0x2b, 0x6e, 0x80, 0xf5, 0xf1, 0x41, 0x6c, 0xae, 0x05, 0x3e, 0x7f,
	    0x54, 0x87, 0xe4, 0x8d, 0xde, 0x7b, 0xce, 0x7f, 0xa9, 0xc1, 0xe5, 0x50, 0xc7, 0xe6, 0x77, 0x07, 0xf0,
	    0x1f, 0x18, 0x39, 0xcd, 0x9d, 0x0f, 0xa0, 0x76, 0x69, 0xc7, 0xf8, 0x19, 0xa8, 0xdc, 0xe0, 0xa0, 0xa4,
	    0x21, 0xd8, 0x5b};
	int64_t t[12];
	double v[12];
	size_t n = 0, bad = 0;
	for (int which = 0; which < 3; which++) {
		const uint8_t *c = which == 0 ? deltas : which == 1 ? dod : xor_runs;
		size_t len = which == 0 ? sizeof(deltas) : which == 1 ? sizeof(dod) : sizeof(xor_runs);
		CHECK_INT_EQ(gw_chunk_decode(c, len, t, v, 12, &n), 0);
		CHECK_INT_EQ(n, 12);
		for (size_t i = 0; i < n; i++) {
			double want = which == 0   ? (i < 4 ? 50 : 50 + (double)(i % 3) * 2.5)
				      : which == 1 ? (i == 5 ? 1e6 + 5000.5 : 1e6 + 1000.0 * (double)i)
				      : (i % 4 ? sin((double)i) * 1e3 : 0.25);
			bool ok = which == 0 && i == 9 ? isnan(v[i]) : bits_of(v[i]) == bits_of(want);
			bad += t[i] != 1751580645000 + 1000 * (int64_t)i + (i == 7 ? 13 : 0) || !ok;
		}
	}
	CHECK_INT_EQ(bad, 0);
}

/* Bytes per sample of n values from gen, after an exact round trip. */
static double bytes_per_sample(double (*gen)(size_t i, unsigned int *seed), size_t n)
{
	static int64_t t[GW_CHUNK_MAX_SAMPLES];
	static double v[GW_CHUNK_MAX_SAMPLES];
	unsigned int seed = 99;
	regular_times(t, n, 1751580645000, 1000);
	for (size_t i = 0; i < n; i++)
		v[i] = gen(i, &seed);
	return (double)roundtrip(t, v, n) / (double)n;
}

static double uniform(unsigned int *seed) /* [0, 1) with 31 random bits */
{
	return (double)rand_r(seed) / ((double)RAND_MAX + 1);
}

/* Power in mW as watts with 3 decimals, ±40 W of noise around 650 W: 16.3 bits of entropy. */
static double gen_power(size_t i, unsigned int *seed)
{
	(void)i;
	return (double)(610000 + (int64_t)(uniform(seed) * 80000)) / 1000.0;
}

/* An NVLink byte rate jumping over 2^37 (37 bits of entropy). */
static double gen_nvlink(size_t i, unsigned int *seed)
{
	(void)i;
	uint64_t r = (uint64_t)rand_r(seed) << 6 ^ (uint64_t)(rand_r(seed) & 63); /* 31 + 6 bits */
	return 5e10 + (double)r;
}

/* A clock in Hz that moves among a few 15 MHz steps. */
static double gen_clock(size_t i, unsigned int *seed)
{
	(void)i;
	return 1980e6 - 15e6 * (double)(rand_r(seed) % 3);
}

/* A 6-decimal ratio: random walk with steps of up to ±0.002. */
static double gen_walk(size_t i, unsigned int *seed)
{
	static int64_t x;
	if (i == 0)
		x = 500000;
	x += rand_r(seed) % 4001 - 2000;
	return (double)x / 1e6;
}

/* An energy counter in mJ (J with 3 decimals) rising by ~650 J a second with noise. */
static double gen_energy(size_t i, unsigned int *seed)
{
	static int64_t x;
	if (i == 0)
		x = 122364280668;
	x += 650000 + rand_r(seed) % 2001 - 1000;
	return (double)x / 1000.0;
}

/*
 * The adaptive decimal coding comes within a bit or two of each source's
 * entropy (the fixed prefix codes of format 2 paid 24 bits for power and
 * 69 for the NVLink rate), and finds a clock's 15 MHz step.
 */
static void test_noise_costs_its_entropy(void)
{
	CHECK(bytes_per_sample(gen_power, 4096) * 8 < 16.3 + 1.5);
	CHECK(bytes_per_sample(gen_power, 128) * 8 < 16.3 + 3); /* a head piece: the header counts */
	CHECK(bytes_per_sample(gen_nvlink, 4096) * 8 < 37 + 1.5);
	CHECK(bytes_per_sample(gen_clock, 4096) * 8 < 2.5); /* log2(3) = 1.58 */
	CHECK(bytes_per_sample(gen_walk, 4096) * 8 < 12 + 1.5); /* log2(4001) = 11.97 */
	/* second differences of ±1000 uniform steps: triangular, 11.7 bits */
	CHECK(bytes_per_sample(gen_energy, 4096) * 8 < 11.7 + 1.5);
}

/* Several columns on one time axis: each coded as it suits (XOR for arbitrary floats, a repeat of an
 * earlier column by reference), exact, checked. */
static void test_columns(void)
{
	enum { M = 500 };
	int64_t t[M], t2[M];
	static double a[M], b[M], c[M], a2[M], b2[M], c2[M], d2[M];
	unsigned int seed = 23;
	regular_times(t, M, 1751580600000, 60000);
	t[100] += 3;
	for (size_t i = 0; i < M; i++) {
		a[i] = sin((double)i / 7.0) * 1e3;
		b[i] = gen_power(i, &seed);
		c[i] = i % 50 < 40 ? 59 : 60;
	}
	c[9] = NAN;
	const double *cols[4] = {a, b, c, b};
	double *out[4] = {a2, b2, c2, d2};
	struct gw_buf e, e3;
	gw_buf_init(&e, 1 << 20);
	gw_buf_init(&e3, 1 << 20);
	CHECK_INT_EQ(gw_chunk_encode_cols(t, cols, 3, M, &e3), 0);
	CHECK_INT_EQ(gw_chunk_encode_cols(t, cols, 4, M, &e), 0);
	CHECK(e.len <= e3.len + 2); /* the repeat costs its reference only */
	gw_buf_release(&e3);
	size_t n = 0, bad = 0;
	const uint8_t *p = (const uint8_t *)e.data;
	CHECK_INT_EQ(gw_chunk_decode_cols(p, e.len, t2, out, 4, M, &n), 0);
	CHECK_INT_EQ(n, M);
	for (size_t i = 0; i < n; i++)
		bad += t2[i] != t[i] || bits_of(a2[i]) != bits_of(a[i]) || bits_of(b2[i]) != bits_of(b[i]) ||
		       bits_of(c2[i]) != bits_of(c[i]) || bits_of(d2[i]) != bits_of(b[i]);
	CHECK_INT_EQ(bad, 0);
	CHECK_INT_EQ(gw_chunk_decode_cols(p, e.len, t2, out, 3, M, &n), GW_EPARSE); /* not the columns asked for */
	CHECK_INT_EQ(gw_chunk_decode_cols(p, e.len, t2, out, 4, M - 1, &n), GW_EOVERFLOW);
	CHECK(gw_chunk_decode(p, e.len, t2, a2, M, &n) != 0); /* not a one-column chunk */
	size_t undetected = 0;
	for (size_t byte = 0; byte < e.len; byte++)
		for (int bit = 0; bit < 8; bit++) {
			e.data[byte] ^= (char)(1 << bit);
			undetected += gw_chunk_decode_cols(p, e.len, t2, out, 4, M, &n) == 0;
			e.data[byte] ^= (char)(1 << bit);
		}
	CHECK_INT_EQ(undetected, 0);
	for (size_t len = 0; len < e.len; len++)
		CHECK(gw_chunk_decode_cols(p, len, t2, out, 4, M, &n) != 0);
	gw_buf_release(&e);
}

/* The chunk's CRC recomputed after a change, so the decoder itself meets the bad bits. */
static void reseal(uint8_t *c, size_t len)
{
	uint32_t crc = gw_crc32(0, c, len - 4);
	for (int i = 0; i < 4; i++)
		c[len - 4 + (size_t)i] = (uint8_t)(crc >> (8 * i));
}

/*
 * Garbage that passes the checksum (a bug, or bits flipped before the CRC
 * was computed) decodes to an error or to some values, never to a crash or
 * undefined behaviour (the sanitizer build runs this).
 */
static void test_garbage_with_valid_crc(void)
{
	int64_t t[300];
	double v[300], v2[300];
	int64_t t2[300];
	unsigned int seed = 17;
	regular_times(t, 300, 1751580645000, 1000);
	size_t errors = 0, decoded = 0;
	for (int kind = 0; kind < 4; kind++) {
		for (size_t i = 0; i < 300; i++)
			v[i] = kind == 0   ? gen_nvlink(i, &seed)
			       : kind == 1 ? gen_power(i, &seed)
			       : kind == 2 ? (i % 40 < 30 ? 7 : (double)(i % 5))
					   : gen_energy(i, &seed);
		v[77] = NAN;
		struct gw_buf b;
		gw_buf_init(&b, 1 << 16);
		CHECK_INT_EQ(gw_chunk_encode(t, v, 300, &b), 0);
		CHECK_INT_EQ(b.data[1], GW_CHUNK_DECIMAL_ADAPT);
		uint8_t *c = (uint8_t *)b.data;
		for (int iter = 0; iter < 3000; iter++) {
			size_t at = (size_t)rand_r(&seed) % (b.len - 4);
			uint8_t was = c[at];
			c[at] ^= (uint8_t)(1 + rand_r(&seed) % 255);
			reseal(c, b.len);
			size_t n = 0;
			if (gw_chunk_decode(c, b.len, t2, v2, 300, &n) == 0)
				decoded++;
			else
				errors++;
			c[at] = was;
		}
		gw_buf_release(&b);
	}
	CHECK(errors > 0);
	CHECK(decoded > 0);
}

static void test_rejects_bad_input(void)
{
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	int64_t t[3] = {3, 2, 1};
	double v[3] = {1, 2, 3};
	CHECK_INT_EQ(gw_chunk_encode(t, v, 3, &b), GW_EINVAL);
	CHECK_INT_EQ(gw_chunk_encode(t, v, 0, &b), GW_EINVAL);
	gw_buf_release(&b);
}

static void corruption_detected(const double *v)
{
	int64_t t[200];
	regular_times(t, 200, 1000, 1000);
	t[150] += 7; /* one off-schedule time stamp */
	struct gw_buf b;
	gw_buf_init(&b, 1 << 16);
	CHECK_INT_EQ(gw_chunk_encode(t, v, 200, &b), 0);
	int64_t t2[200];
	double v2[200];
	size_t n;
	/* Flip each bit in turn: every one is caught, nothing crashes. */
	size_t undetected = 0;
	for (size_t byte = 0; byte < b.len; byte++) {
		for (int bit = 0; bit < 8; bit++) {
			b.data[byte] ^= (char)(1 << bit);
			if (gw_chunk_decode((const uint8_t *)b.data, b.len, t2, v2, 200, &n) == 0)
				undetected++;
			b.data[byte] ^= (char)(1 << bit);
		}
	}
	CHECK_INT_EQ(undetected, 0);
	/* Every truncation too. */
	for (size_t len = 0; len < b.len; len++)
		CHECK(gw_chunk_decode((const uint8_t *)b.data, len, t2, v2, 200, &n) != 0);
	/* Too small an output array. */
	CHECK_INT_EQ(gw_chunk_decode((const uint8_t *)b.data, b.len, t2, v2, 100, &n), GW_EOVERFLOW);
	gw_buf_release(&b);
}

/* Every coding: decimal deltas, deltas of deltas with a raw value, XOR with runs. */
static void test_corruption_detected(void)
{
	double v[200];
	for (size_t i = 0; i < 200; i++)
		v[i] = (double)(i * i % 97);
	corruption_detected(v);
	for (size_t i = 0; i < 200; i++)
		v[i] = i < 80 ? 5.0 : 1e6 + 1000.0 * (double)i;
	v[120] = NAN;
	corruption_detected(v);
	for (size_t i = 0; i < 200; i++)
		v[i] = i % 50 < 30 ? sin((double)i) : 0.1;
	corruption_detected(v);
}

/* Minute buckets: first sample apart, the rest folded; exact round trip; damage detected. */
static void test_rollup(void)
{
	int64_t t[N];
	double v[N];
	regular_times(t, N, 1751580600000, 1000); /* on a minute boundary */
	for (size_t i = 0; i < N; i++)
		v[i] = (double)(i % 77);
	v[5] = gw_stale_nan();
	struct gw_bucket b[N], d[N];
	size_t nb = gw_rollup_build(t, v, N, GW_ROLLUP_MINUTE_MS, b);
	CHECK_INT_EQ(nb, 17); /* 1000 s from a minute boundary */
	CHECK(b[0].first_t == t[0] && b[0].first == 0 && b[0].last_t == t[59] && b[0].count == 58);
	CHECK(b[0].min == 1 && b[0].max == 59);
	int64_t et[2];
	double ev[2];
	CHECK_INT_EQ(gw_rollup_emit(&b[0], GW_AGG_MAX, et, ev), 2);
	CHECK(et[0] == t[0] && ev[0] == 0 && et[1] == t[59] && ev[1] == 59);
	CHECK_INT_EQ(gw_rollup_emit(&b[0], GW_AGG_COUNT, et, ev), 2);
	CHECK(ev[0] == 1 && ev[1] == 58);
	/* The same samples cut in two and merged give the same buckets. */
	struct gw_bucket c[N];
	size_t n1 = gw_rollup_build(t, v, 130, GW_ROLLUP_MINUTE_MS, c);
	size_t n2 = gw_rollup_build(t + 130, v + 130, N - 130, GW_ROLLUP_MINUTE_MS, c + n1);
	CHECK_INT_EQ(gw_rollup_merge(c, n1 + n2, GW_ROLLUP_MINUTE_MS), nb);
	CHECK(memcmp(c, b, nb * sizeof(*b)) == 0);
	/* Hours from minutes. */
	size_t nh = gw_rollup_merge(c, nb, 3600000);
	CHECK(nh == 1 && c[0].count == N - 2 && c[0].last_t == t[N - 1]);

	struct gw_buf e;
	gw_buf_init(&e, 1 << 20);
	CHECK_INT_EQ(gw_rollup_encode(b, nb, &e), 0);
	size_t nd = 0;
	CHECK_INT_EQ(gw_rollup_decode((const uint8_t *)e.data, e.len, d, N, &nd), 0);
	CHECK_INT_EQ(nd, nb);
	CHECK(memcmp(d, b, nb * sizeof(*b)) == 0);
	size_t undetected = 0;
	for (size_t byte = 0; byte < e.len; byte++)
		for (int bit = 0; bit < 8; bit++) {
			e.data[byte] ^= (char)(1 << bit);
			undetected += gw_rollup_decode((const uint8_t *)e.data, e.len, d, N, &nd) == 0;
			e.data[byte] ^= (char)(1 << bit);
		}
	CHECK_INT_EQ(undetected, 0);
	for (size_t len = 0; len < e.len; len++)
		CHECK(gw_rollup_decode((const uint8_t *)e.data, len, d, N, &nd) != 0);
	gw_buf_release(&e);
}

/* Buckets written in the first rollup layout (six chunks) still decode. */
static void test_reads_old_rollup(void)
{
	/* 150 samples from a minute boundary, v = (7i mod 23) / 4: 3 buckets */
	static const uint8_t old[] = {
	    0x03, 0x13, 0xc7, 0x02, 0x03, 0x80, 0x9b, 0xb7, 0xa5, 0xfa, 0x65, 0xc0, 0xa9, 0x07, 0x81, 0x48, 0xf2, 0xeb,
	    0xf6, 0x2b, 0x01, 0x1a, 0xc7, 0x02, 0x03, 0xf0, 0xb4, 0xbe, 0xa5, 0xfa, 0x65, 0xc0, 0xa9, 0x07, 0x02, 0xe0,
	    0xea, 0x5f, 0xc4, 0x4c, 0xc3, 0x51, 0xc0, 0x96, 0xd8, 0xbb, 0x0b, 0x07, 0x15, 0xc7, 0x02, 0x03, 0xf0, 0xb4,
	    0xbe, 0xa5, 0xfa, 0x65, 0xc0, 0xa9, 0x07, 0x00, 0xe0, 0xea, 0x5f, 0x20, 0x9d, 0x42, 0x64, 0x5b, 0x17, 0xc7,
	    0x02, 0x03, 0xf0, 0xb4, 0xbe, 0xa5, 0xfa, 0x65, 0xc0, 0xa9, 0x07, 0x01, 0xe0, 0xea, 0x5f, 0xc0, 0x6e, 0x60,
	    0x15, 0x61, 0xbd, 0xa4, 0x1c, 0xc7, 0x02, 0x03, 0xf0, 0xb4, 0xbe, 0xa5, 0xfa, 0x65, 0xc0, 0xa9, 0x07, 0x02,
	    0xe0, 0xea, 0x5f, 0xe0, 0x80, 0xe8, 0xc2, 0xbb, 0xe0, 0x41, 0x6d, 0x5f, 0x51, 0xe4, 0xef, 0x18, 0xc7, 0x02,
	    0x03, 0xf0, 0xb4, 0xbe, 0xa5, 0xfa, 0x65, 0xc0, 0xa9, 0x07, 0x00, 0xe0, 0xea, 0x5f, 0xc0, 0x76, 0x4e, 0xc0,
	    0xcd, 0x8f, 0x87, 0xf1};
	int64_t t[150];
	double v[150];
	for (size_t i = 0; i < 150; i++) {
		t[i] = 1751580600000 + 1000 * (int64_t)i;
		v[i] = (double)((i * 7) % 23) / 4;
	}
	struct gw_bucket want[150], got[150];
	size_t nw = gw_rollup_build(t, v, 150, GW_ROLLUP_MINUTE_MS, want), ng = 0;
	CHECK_INT_EQ(nw, 3);
	CHECK_INT_EQ(gw_rollup_decode(old, sizeof(old), got, 150, &ng), 0);
	CHECK_INT_EQ(ng, nw);
	CHECK(memcmp(got, want, nw * sizeof(*want)) == 0);
	/* The layout written now is smaller: one header and CRC, not six. */
	struct gw_buf e;
	gw_buf_init(&e, 1 << 16);
	CHECK_INT_EQ(gw_rollup_encode(want, nw, &e), 0);
	CHECK(e.len < sizeof(old) / 2);
	CHECK_INT_EQ((uint8_t)e.data[0], 0);
	gw_buf_release(&e);
}

int main(void)
{
	RUN(test_bits_round_trip);
	RUN(test_constant_series_is_tiny);
	RUN(test_gpu_like_integers);
	RUN(test_decimals_and_power);
	RUN(test_arbitrary_floats_use_xor);
	RUN(test_specials_and_jitter);
	RUN(test_random_mixes);
	RUN(test_rollup);
	RUN(test_reads_old_rollup);
	RUN(test_columns);
	RUN(test_reads_format_1);
	RUN(test_reads_format_2);
	RUN(test_noise_costs_its_entropy);
	RUN(test_garbage_with_valid_crc);
	RUN(test_rejects_bad_input);
	RUN(test_corruption_detected);
	return harness_done();
}

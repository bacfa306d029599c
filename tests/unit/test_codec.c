/* The chunk codec: exact round trips, compactness, corruption detection. */
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
	RUN(test_reads_format_1);
	RUN(test_rejects_bad_input);
	RUN(test_corruption_detected);
	return harness_done();
}

/* The chunk codec: exact round trips, compactness, corruption detection. */
#include "core/err.h"
#include "harness.h"
#include "store/codec.h"

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

static void test_constant_series_is_tiny(void)
{
	int64_t t[N];
	double v[N];
	regular_times(t, N, 1751580645000, 1000);
	for (size_t i = 0; i < N; i++)
		v[i] = 143771.0;
	size_t len = roundtrip(t, v, N);
	/* ~2 bits per sample plus a header. */
	CHECK(len < N / 4 + 32);
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

static void test_corruption_detected(void)
{
	int64_t t[200];
	double v[200];
	regular_times(t, 200, 1000, 1000);
	for (size_t i = 0; i < 200; i++)
		v[i] = (double)(i * i % 97);
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

int main(void)
{
	RUN(test_constant_series_is_tiny);
	RUN(test_gpu_like_integers);
	RUN(test_decimals_and_power);
	RUN(test_arbitrary_floats_use_xor);
	RUN(test_specials_and_jitter);
	RUN(test_rejects_bad_input);
	RUN(test_corruption_detected);
	return harness_done();
}

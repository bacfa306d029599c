#include "model/number.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Digits of u, right-aligned, ending just before end; returns the first. */
static char *utoa_back(char *end, uint64_t u)
{
	static const char d2[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				 "8081828384858687888990919293949596979899";
	while (u >= 100) { /* two digits a division */
		unsigned r = (unsigned)(u % 100);
		u /= 100;
		end -= 2;
		memcpy(end, d2 + 2 * r, 2);
	}
	if (u >= 10) {
		end -= 2;
		memcpy(end, d2 + 2 * u, 2);
	} else {
		*--end = (char)('0' + u);
	}
	return end;
}

static size_t ndigits(uint64_t u)
{
	size_t n = 1;
	for (; u >= 10000; u /= 10000)
		n += 4;
	return n + (u >= 10) + (u >= 100) + (u >= 1000);
}

/*
 * m·10^-d as fixed point ("-12.345", "0.0012", "42"), straight into out
 * (digits written from the end; no copies): returns the length.
 */
size_t gw_num_decimal(char *out, bool neg, uint64_t m, int d)
{
	size_t o = neg, nd = ndigits(m);
	if (neg)
		out[0] = '-';
	if (d == 0) {
		utoa_back(out + o + nd, m);
		return o + nd;
	}
	if (nd <= (size_t)d) { /* 0.00ddd */
		out[o++] = '0';
		out[o++] = '.';
		for (size_t z = nd; z < (size_t)d; z++)
			out[o++] = '0';
		utoa_back(out + o + nd, m);
		return o + nd;
	}
	char *end = out + o + nd + 1; /* the digits and the point */
	for (int k = 0; k < d; k++) {
		*--end = (char)('0' + m % 10);
		m /= 10;
	}
	*--end = '.';
	utoa_back(end, m);
	return o + nd + 1;
}

/*
 * The shortest decimal that reads back as v, as fixed point: for the
 * values monitoring produces (integers, watts with three decimals, ratios
 * with a few) without printf. For each count of decimals d, from 0, the
 * integers m next to v·10^d are tried: m/10^d is computed exactly as a
 * parser would round it (m < 2^53 and 10^d ≤ 10^22 are both exact, so the
 * one IEEE division is correctly rounded), so m/10^d == v means "m·10^-d"
 * reads back as v. Fewer decimals means fewer significant digits while
 * |v| < 2^53, so the first d that works is the shortest; if two m work
 * for that d the closest-digits rule decides, which the slow path applies.
 * Returns the length written to out (≥ 40 bytes), or 0 for the slow path.
 */
static size_t fmt_fixed_fast(char *out, double v)
{
	static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
				     1e12, 1e13, 1e14, 1e15, 1e16, 1e17};
	const double lim = 9007199254740992.0; /* 2^53 */
	double a = fabs(v);
	if (!(a < lim))
		return 0;
	for (int d = 0; d < (int)(sizeof(p10) / sizeof(p10[0])); d++) {
		double x = a * p10[d];
		if (x >= lim)
			return 0;
		/* x < 2^53: a signed conversion (one instruction), off by one at worst: neighbours are tried */
		uint64_t m0 = (uint64_t)(int64_t)(x + 0.5), m = 0;
		/*
		 * An m that reads back is within half an ulp of a, times 10^d,
		 * of a·10^d: |x - m| ≤ x·2^-52 with x's own rounding. Far from
		 * every integer, no division can hit: skip them (most d).
		 */
		if (fabs(x - (double)(int64_t)m0) > x * 0x1p-50)
			continue;
		/*
		 * Below 2^52 two integers c, c+1 cannot both read back (10^-d
		 * apart, more than an ulp of a), so the nearest is tried first
		 * and a hit is the only one; above, every neighbour is tried.
		 */
		int hits = 0;
		if (x < 0x1p52 && (double)(int64_t)m0 / p10[d] == a) {
			m = m0;
			hits = 1;
		} else {
			for (uint64_t c = m0 ? m0 - 1 : 0; c <= m0 + 1; c++)
				if ((double)(int64_t)c / p10[d] == a) {
					m = c;
					hits++;
				}
		}
		if (hits > 1)
			return 0;
		if (!hits)
			continue;
		return gw_num_decimal(out, signbit(v), m, d);
	}
	return 0;
}

/*
 * The shortest decimal that reads back as v, for any v in [2^-60, 2^53)
 * (rates, averages, ratios: the values fmt_fixed_fast does not take), by
 * exact integer arithmetic instead of printf trials. With v = m·2^e (m of
 * 53 bits), every real in the interval around 4m·2^(e-2) of half-width
 * 2·2^(e-2) reads back as v (its ends too when m is even: ties go to the
 * even mantissa). For d·10^-j to lie in it, d·2^s must lie in
 * [(4m-2)·10^j, (4m+2)·10^j] with s = 2 - e, so the division by 2^s is a
 * shift. The first j with an integer d in range gives the fewest digits;
 * the d nearest v is the one a shortest-digits printer chooses. Returns
 * the length, or 0 where this does not decide (other ranges, a power of
 * two's uneven interval, a tie, 128-bit overflow): the slow path.
 */
static size_t fmt_shortest_fast(char *out, double v)
{
	double a = fabs(v);
	if (!(a >= 0x1p-60 && a < 0x1p53))
		return 0;
	uint64_t bits;
	memcpy(&bits, &a, sizeof(bits));
	uint64_t m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52); /* normal: a >= 2^-60 */
	int s = 2 - ((int)(bits >> 52) - 1075);                  /* a = 4m / 2^s */
	if (m == (1ULL << 52))
		return 0;
	typedef unsigned __int128 u128;
	const u128 mask = ((u128)1 << s) - 1, half = (u128)1 << (s - 1);
	bool incl = (m & 1) == 0;
	u128 lo = 4 * (u128)m - 2, hi = 4 * (u128)m + 2, c = 4 * (u128)m, d = 0;
	int j = 0;
	for (;; j++) { /* hi < 2^56 · 10^j: no overflow up to j = 21 */
		d = c >> s;
		u128 rem = c & mask;
		if (rem == half)
			return 0;
		if (rem > half)
			d++;
		u128 dd = d << s;
		if (incl ? (dd >= lo && dd <= hi) : (dd > lo && dd < hi))
			break;
		if (j == 21)
			return 0;
		lo = (lo << 3) + (lo << 1);
		hi = (hi << 3) + (hi << 1);
		c = (c << 3) + (c << 1);
	}
	if (d >> 64)
		return 0;
	return gw_num_decimal(out, signbit(v), (uint64_t)d, j);
}

/*
 * Values with at most six decimals (most of what GPUs report: watts to the
 * milliwatt, ratios, integers) in one try: with x = |v|·10^6 below 2^52, at
 * most one integer c has c/10^6 read back as v (see fmt_shortest_fast), and
 * if v has a shorter decimal, that decimal times a power of ten is c; so c
 * with its trailing zeros stripped is the shortest. Returns the length, or
 * 0 when v has no such c.
 */
static size_t fmt_dec6(char *out, double v)
{
	double a = fabs(v), x = a * 1e6;
	if (!(x < 0x1p52))
		return 0;
	int64_t m = (int64_t)(x + 0.5), c = -1;
	if (fabs(x - (double)m) > x * 0x1p-50)
		return 0;
	const int64_t try[3] = {m, m - 1, m + 1}; /* x's rounding: off by one at worst */
	for (int i = 0; i < 3 && c < 0; i++)
		if (try[i] >= 0 && (double)try[i] / 1e6 == a)
			c = try[i];
	if (c < 0)
		return 0;
	int d = 6;
	while (d > 0 && c % 10 == 0) {
		c /= 10;
		d--;
	}
	return gw_num_decimal(out, signbit(v), (uint64_t)c, d);
}

/* v with this many significant digits, "%.*e", in e; whether it reads back as v. */
static bool reads_back(char *e, size_t n, int digits, double v)
{
	snprintf(e, n, "%.*e", digits - 1, v);
	return strtod(e, NULL) == v;
}

/*
 * The shortest "%.*e" of v (finite) that reads back as v, in e (40 bytes);
 * returns its number of significant digits.
 *
 * Shortest digits by trial: printf rounds to the closest of each length.
 * A measured double (most values here) needs 16 or 17, so those are tried
 * first, then the lengths below are bisected: the closest (N+1)-digit
 * decimal is at least as close as the closest N-digit one, so once a length
 * reads back every longer one does, except around a power of two (the next
 * double below is half as far), which takes every length in turn.
 */
static int shortest_e(char *e, size_t n, double v)
{
	int digits;
	int exp2;
	if (fabs(frexp(v, &exp2)) == 0.5) {
		for (digits = 1; digits < 17 && !reads_back(e, n, digits, v); digits++)
			;
		reads_back(e, n, digits, v);
	} else if (!reads_back(e, n, 16, v)) {
		digits = 17;
		reads_back(e, n, 17, v);
	} else if (!reads_back(e, n, 15, v)) {
		digits = 16;
		reads_back(e, n, 16, v);
	} else {
		int lo = 1, hi = 15;
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (reads_back(e, n, mid, v))
				hi = mid;
			else
				lo = mid + 1;
		}
		digits = hi;
		reads_back(e, n, digits, v);
	}
	return digits;
}

size_t gw_num_format_f(char *out, size_t cap, double v)
{
	/* Measured values (few decimals) first, where that is quickest; then
	 * computed ones by the exact search; then printf trials. */
	size_t n = cap >= 96 ? fmt_dec6(out, v) : 0;
	if (!n && cap >= 96)
		n = fmt_shortest_fast(out, v);
	if (!n && cap >= 48)
		n = fmt_fixed_fast(out, v);
	if (n)
		return n;
	char e[40];
	int digits = shortest_e(e, sizeof(e), v);
	int exp = atoi(strchr(e, 'e') + 1);
	int decimals = digits - 1 - exp;
	if (decimals >= 0) {
		int w = snprintf(out, cap, "%.*f", decimals, v);
		return w < 0 ? 0 : (size_t)w < cap ? (size_t)w : cap - 1;
	}
	/* Past the last significant digit Go writes zeros, where "%.0f" would
	 * write the double's exact (longer) integer: the digits of e, padded. */
	size_t o = 0;
	for (const char *p = e; *p != 'e' && o + 1 < cap; p++)
		if (*p != '.')
			out[o++] = *p;
	for (int z = 0; z < -decimals && o + 1 < cap; z++)
		out[o++] = '0';
	return o;
}

size_t gw_num_format_e(char *out, double v)
{
	char e[40];
	shortest_e(e, sizeof(e), v);
	size_t n = strlen(e);
	memcpy(out, e, n);
	return n;
}

/* ---- 'g': the exposition format -------------------------------------------- */

/*
 * The shortest 'f' digits of a fractional normal v, rewritten as "%.Ng"
 * writes them (a normal double's precision is finer than 6 digits). For |v| >= 1e-4 the two agree: a fractional value has more
 * significant digits than its decimal exponent, so %g stays in fixed
 * point, and N >= 6 only pads with zeros that %g strips. Below 1e-4 %g
 * writes d.ddde-XX: the same digits, moved.
 */
static size_t fmt_g_fraction(char *out, double v)
{
	char f[400];
	size_t n = gw_num_format_f(f, sizeof(f), v);
	if (fabs(v) >= 1e-4) {
		memcpy(out, f, n);
		return n;
	}
	/* "-0.000012345" -> "-1.2345e-05" */
	size_t i = 0, o = 0;
	if (f[0] == '-')
		out[o++] = f[i++];
	i += 2; /* "0." */
	int zeros = 0;
	while (i < n && f[i] == '0') {
		zeros++;
		i++;
	}
	out[o++] = f[i++];
	if (i < n) {
		out[o++] = '.';
		while (i < n)
			out[o++] = f[i++];
	}
	return o + (size_t)snprintf(out + o, 16, "e-%02d", zeros + 1);
}

size_t gw_num_format_g(char *out, double v)
{
	if (isnan(v)) {
		memcpy(out, "NaN", 3);
		return 3;
	}
	if (isinf(v)) {
		memcpy(out, v > 0 ? "+Inf" : "-Inf", 4);
		return 4;
	}
	if (v == floor(v) && fabs(v) < 1e15) /* digit for digit as "%.0f" prints it ("-0" included) */
		return gw_num_decimal(out, signbit(v), (uint64_t)fabs(v), 0);
	if (v == floor(v))
		return (size_t)snprintf(out, GW_NUM_G_MAX, "%.17g", v);
	if (fabs(v) < 0x1p-1022) {
		/* Subnormals have fewer than 6 significant digits of precision, so
		 * "%.6g" keeps digits the shortest form drops: printf decides. */
		int n = 0;
		for (int prec = 6; prec <= 17; prec++) {
			n = snprintf(out, GW_NUM_G_MAX, "%.*g", prec, v);
			if (strtod(out, NULL) == v)
				break;
		}
		return (size_t)n;
	}
	return fmt_g_fraction(out, v);
}

/* CRC-32 as zlib computes it: the check value, continuation, and every
 * length and alignment against the one-bit-at-a-time definition. */
#include "core/crc32.h"
#include "harness.h"

#include <stdint.h>

static uint32_t by_bits(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
	}
	return ~crc;
}

static void test_check_value(void)
{
	CHECK_INT_EQ(gw_crc32(0, "123456789", 9), 0xCBF43926u);
	CHECK_INT_EQ(gw_crc32(0, "", 0), 0);
	CHECK_INT_EQ(gw_crc32(gw_crc32(0, "12345", 5), "6789", 4), 0xCBF43926u);
}

static void test_matches_definition(void)
{
	static uint8_t buf[4096 + 16];
	uint64_t s = 0x2545F4914F6CDD1Du;
	for (size_t i = 0; i < sizeof(buf); i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		buf[i] = (uint8_t)s;
	}
	int bad = 0;
	for (size_t off = 0; off < 9; off++)
		for (size_t n = 0; n < 300; n++)
			bad += gw_crc32(0, buf + off, n) != by_bits(0, buf + off, n);
	bad += gw_crc32(0, buf, 4096) != by_bits(0, buf, 4096);
	bad += gw_crc32(7, buf + 3, 1000) != by_bits(7, buf + 3, 1000);
	CHECK_INT_EQ(bad, 0);
}

int main(void)
{
	RUN(test_check_value);
	RUN(test_matches_definition);
	return harness_done();
}

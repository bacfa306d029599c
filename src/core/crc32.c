#include "core/crc32.h"

/* The table is a pure function of the polynomial, computed at compile time. */
#define P 0xEDB88320u
#define S1(c) (((c) & 1) ? P ^ ((c) >> 1) : (c) >> 1)
#define S8(c) S1(S1(S1(S1(S1(S1(S1(S1(c))))))))
#define R4(i) S8(i), S8(i + 1), S8(i + 2), S8(i + 3)
#define R16(i) R4(i), R4(i + 4), R4(i + 8), R4(i + 12)
#define R64(i) R16(i), R16(i + 16), R16(i + 32), R16(i + 48)

static const uint32_t table[256] = {R64(0u), R64(64u), R64(128u), R64(192u)};

uint32_t gw_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

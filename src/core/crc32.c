#include "core/crc32.h"

#include <pthread.h>
#include <string.h>

/*
 * Slicing by eight: t[0] is the classic byte table; t[k][i] is the CRC of
 * byte i followed by k zero bytes, so eight bytes fold in with eight
 * lookups and no dependency between them. About five times the speed of a
 * byte at a time, which mattered: checking chunks was a tenth of a day-long
 * query's time.
 */
#define P 0xEDB88320u

static uint32_t t[8][256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? P ^ (c >> 1) : c >> 1;
		t[0][i] = c;
	}
	for (int k = 1; k < 8; k++)
		for (uint32_t i = 0; i < 256; i++)
			t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
}

uint32_t gw_crc32(uint32_t crc, const void *data, size_t len)
{
	pthread_once(&once, init);
	const uint8_t *p = data;
	crc = ~crc;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t a, b;
		memcpy(&a, p, 4);
		memcpy(&b, p + 4, 4);
		a ^= crc;
		crc = t[7][a & 0xff] ^ t[6][(a >> 8) & 0xff] ^ t[5][(a >> 16) & 0xff] ^ t[4][a >> 24] ^
		      t[3][b & 0xff] ^ t[2][(b >> 8) & 0xff] ^ t[1][(b >> 16) & 0xff] ^ t[0][b >> 24];
	}
#endif
	while (len--)
		crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* crc32.h - CRC-32 (IEEE 802.3, as zlib computes it) for on-disk checksums. */
#ifndef GW_CORE_CRC32_H
#define GW_CORE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: start with crc = 0. */
uint32_t gw_crc32(uint32_t crc, const void *data, size_t len);

#endif

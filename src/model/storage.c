#include "model/storage.h"

double gw_stale_nan(void)
{
	uint64_t b = GW_STALE_NAN_BITS;
	double v;
	memcpy(&v, &b, sizeof(v));
	return v;
}

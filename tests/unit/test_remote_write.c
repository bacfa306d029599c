/* The remote-write body: our own output read back with libprotobuf-c and
 * snappy equals what went in (labels sorted, external labels merged, every
 * value exactly, -0.0, NaN and the staleness marker included), and one
 * small request's bytes equal the wire format the protocol specifies. */
#include "export/remote_write.h"
#include "harness.h"
#include "model/storage.h"
#include "remote.pb-c.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static struct gw_snappy sn;

static void test_wire_bytes(void)
{
	/* WriteRequest{timeseries: [{labels: [{__name__, a}], samples: [{value 1, timestamp 2}]}]} */
	static const unsigned char want[] = {0x0a, 0x1c, 0x0a, 0x0d, 0x0a, 0x08, '_',  '_',  'n',  'a',
					     'm',  'e',	 '_',  '_',  0x12, 0x01, 'a',  0x12, 0x0b, 0x09,
					     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, 0x10, 0x02};
	struct gw_lpair p[] = {{"__name__", "a"}};
	int64_t t = 2;
	double v = 1;
	struct gw_rw_series s = {{p, 1}, &t, &v, 1};
	struct gw_buf pb;
	gw_buf_init(&pb, 1 << 20);
	CHECK_INT_EQ(gw_rw_marshal(&s, 1, NULL, &pb, NULL), 0);
	CHECK_INT_EQ(pb.len, sizeof(want));
	CHECK(pb.len == sizeof(want) && memcmp(pb.data, want, sizeof(want)) == 0);
	gw_buf_release(&pb);
}

static void test_round_trip(void)
{
	struct gw_lpair a[] = {{"__name__", "DCGM_FI_DEV_GPU_TEMP"}, {"gpu", "0"}, {"instance", "h1"}};
	struct gw_lpair b[] = {{"__name__", "up"}, {"job", "gpuwatch"}};
	struct gw_lpair ext[] = {{"cluster", "c1"}, {"instance", "ignored"}, {"zone", "z"}};
	struct gw_labels el = {ext, 3};
	int64_t ta[] = {1000, 2000, 3000};
	double va[] = {41.5, -0.0, 1e300};
	int64_t tb[] = {-5, 1764800000123};
	double vb[] = {NAN, 0};
	vb[1] = gw_stale_nan();
	struct gw_rw_series s[] = {{{a, 3}, ta, va, 3}, {{b, 2}, tb, vb, 2}};
	struct gw_buf pb, body, back;
	gw_buf_init(&pb, 1 << 20);
	gw_buf_init(&body, 1 << 20);
	gw_buf_init(&back, 1 << 20);
	CHECK_INT_EQ(gw_rw_encode(&sn, s, 2, &el, &pb, &body, NULL), 0);
	CHECK_INT_EQ(gw_snappy_uncompress(&sn, body.data, body.len, &back), 0);
	CHECK_INT_EQ(back.len, pb.len);
	Gwrw__WriteRequest *r = gwrw__write_request__unpack(NULL, back.len, (const uint8_t *)back.data);
	CHECK(r != NULL);
	if (!r)
		goto out;
	CHECK_INT_EQ(r->n_timeseries, 2);
	/* series a: cluster, gpu, instance (its own), zone added, sorted */
	Gwrw__TimeSeries *x = r->timeseries[0];
	static const char *want_a[][2] = {{"__name__", "DCGM_FI_DEV_GPU_TEMP"},
					  {"cluster", "c1"},
					  {"gpu", "0"},
					  {"instance", "h1"},
					  {"zone", "z"}};
	CHECK_INT_EQ(x->n_labels, 5);
	for (size_t i = 0; i < x->n_labels && i < 5; i++) {
		CHECK_STR_EQ(x->labels[i]->name, want_a[i][0]);
		CHECK_STR_EQ(x->labels[i]->value, want_a[i][1]);
	}
	CHECK_INT_EQ(x->n_samples, 3);
	for (size_t i = 0; i < x->n_samples && i < 3; i++) {
		CHECK_INT_EQ(x->samples[i]->timestamp, ta[i]);
		CHECK(memcmp(&x->samples[i]->value, &va[i], sizeof(double)) == 0);
	}
	x = r->timeseries[1];
	static const char *want_b[][2] = {{"__name__", "up"},
					  {"cluster", "c1"},
					  {"instance", "ignored"},
					  {"job", "gpuwatch"},
					  {"zone", "z"}};
	CHECK_INT_EQ(x->n_labels, 5);
	for (size_t i = 0; i < x->n_labels && i < 5; i++) {
		CHECK_STR_EQ(x->labels[i]->name, want_b[i][0]);
		CHECK_STR_EQ(x->labels[i]->value, want_b[i][1]);
	}
	CHECK_INT_EQ(x->n_samples, 2);
	CHECK(x->n_samples == 2 && isnan(x->samples[0]->value) && gw_is_stale_nan(x->samples[1]->value));
	CHECK_INT_EQ(x->samples[1]->timestamp, 1764800000123LL);
	CHECK_INT_EQ(x->samples[0]->timestamp, -5);
	gwrw__write_request__free_unpacked(r, NULL);
out:
	/* not snappy: refused, not crashed on */
	CHECK_INT_EQ(gw_snappy_uncompress(&sn, "\xff\xff\xff\xff\xff", 5, &back), GW_EINVAL);
	gw_buf_release(&pb);
	gw_buf_release(&body);
	gw_buf_release(&back);
}

static void test_empty(void)
{
	struct gw_buf pb, body;
	gw_buf_init(&pb, 1 << 20);
	gw_buf_init(&body, 1 << 20);
	CHECK_INT_EQ(gw_rw_encode(&sn, NULL, 0, NULL, &pb, &body, NULL), 0);
	CHECK_INT_EQ(pb.len, 0);
	CHECK(body.len > 0); /* snappy's length preamble of 0 */
	gw_buf_release(&pb);
	gw_buf_release(&body);
}

int main(void)
{
	struct gw_err err;
	gw_err_clear(&err);
	if (gw_snappy_open(&sn, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	RUN(test_wire_bytes);
	RUN(test_round_trip);
	RUN(test_empty);
	return harness_done();
}

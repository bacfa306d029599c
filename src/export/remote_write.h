/*
 * remote_write.h - the body of a Prometheus remote-write 1.0 request: a
 * WriteRequest (remote.proto, compiled by protoc-c at build time) of time
 * series, serialized by libprotobuf-c and compressed in snappy's block
 * format (export/snappy.h). The sender (agent/remote_write.c) posts it
 * with Content-Encoding: snappy and Content-Type: application/x-protobuf.
 *
 * Each series' labels go out sorted by name, as the protocol requires, with
 * the external labels added where the series lacks them (Prometheus'
 * rule: a series' own label wins). Samples are written as given: the
 * caller keeps each series' samples ascending in time.
 *
 * Ownership: everything is borrowed; out is the caller's. Threading: none
 * shared; one encoder per thread.
 */
#ifndef GW_EXPORT_REMOTE_WRITE_H
#define GW_EXPORT_REMOTE_WRITE_H

#include "core/buf.h"
#include "core/err.h"
#include "export/snappy.h"
#include "model/labels.h"

#include <stddef.h>
#include <stdint.h>

#define GW_RW_CONTENT_TYPE "application/x-protobuf"
#define GW_RW_ENCODING "snappy"
#define GW_RW_VERSION "0.1.0" /* X-Prometheus-Remote-Write-Version of protocol 1.0 */

/* One series of a request: its labels (sorted, __name__ among them) and samples. */
struct gw_rw_series {
	struct gw_labels labels;
	const int64_t *t; /* ms */
	const double *v;
	size_t n;
};

/* The WriteRequest for s[0..n) with external labels ext (sorted; may be empty), uncompressed, into pb
 * (replaced). */
int gw_rw_marshal(const struct gw_rw_series *s, size_t n, const struct gw_labels *ext, struct gw_buf *pb,
		  struct gw_err *err);

/* gw_rw_marshal, then snappy: the request's body into body (replaced); pb is scratch. */
int gw_rw_encode(const struct gw_snappy *sn, const struct gw_rw_series *s, size_t n,
		 const struct gw_labels *ext, struct gw_buf *pb, struct gw_buf *body, struct gw_err *err);

#endif

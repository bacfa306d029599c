/*
 * remote_write.c - a WriteRequest from series (remote_write.h): the
 * messages built in three flat arrays, packed by libprotobuf-c, then
 * compressed by snappy.
 */
#include "export/remote_write.h"

#include "remote.pb-c.h"

#include <stdlib.h>
#include <string.h>

/* The series' labels and the external ones it lacks, sorted by name, into l; how many. */
static size_t merge_labels(const struct gw_labels *own, const struct gw_labels *ext, Gwrw__Label *l)
{
	size_t i = 0, j = 0, k = 0;
	size_t ne = ext ? ext->n : 0;
	while (i < own->n || j < ne) {
		int c = i == own->n ? 1 : j == ne ? -1 : strcmp(own->p[i].name, ext->p[j].name);
		const struct gw_lpair *p = c <= 0 ? &own->p[i++] : &ext->p[j++];
		if (c == 0)
			j++; /* the series' own label wins */
		gwrw__label__init(&l[k]);
		/* protobuf-c only reads them while packing */
		l[k].name = (char *)p->name;
		l[k].value = (char *)p->value;
		k++;
	}
	return k;
}

int gw_rw_marshal(const struct gw_rw_series *s, size_t n, const struct gw_labels *ext, struct gw_buf *pb,
		  struct gw_err *err)
{
	size_t nl = 0, ns = 0, ne = ext ? ext->n : 0;
	for (size_t i = 0; i < n; i++) {
		nl += s[i].labels.n + ne;
		ns += s[i].n;
	}
	Gwrw__TimeSeries *ts = calloc(n ? n : 1, sizeof(*ts));
	Gwrw__TimeSeries **tsp = calloc(n ? n : 1, sizeof(*tsp));
	Gwrw__Label *lab = calloc(nl ? nl : 1, sizeof(*lab));
	Gwrw__Label **labp = calloc(nl ? nl : 1, sizeof(*labp));
	Gwrw__Sample *smp = calloc(ns ? ns : 1, sizeof(*smp));
	Gwrw__Sample **smpp = calloc(ns ? ns : 1, sizeof(*smpp));
	int rc = ts && tsp && lab && labp && smp && smpp ? 0 : gw_err_set(err, GW_ENOMEM, "out of memory");
	size_t li = 0, si = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		gwrw__time_series__init(&ts[i]);
		size_t k = merge_labels(&s[i].labels, ext, lab + li);
		for (size_t j = 0; j < k; j++)
			labp[li + j] = &lab[li + j];
		ts[i].labels = labp + li;
		ts[i].n_labels = k;
		li += k;
		for (size_t j = 0; j < s[i].n; j++) {
			gwrw__sample__init(&smp[si + j]);
			smp[si + j].value = s[i].v[j];
			smp[si + j].timestamp = s[i].t[j];
			smpp[si + j] = &smp[si + j];
		}
		ts[i].samples = smpp + si;
		ts[i].n_samples = s[i].n;
		si += s[i].n;
		tsp[i] = &ts[i];
	}
	if (!rc) {
		Gwrw__WriteRequest req = GWRW__WRITE_REQUEST__INIT;
		req.timeseries = tsp;
		req.n_timeseries = n;
		size_t len = gwrw__write_request__get_packed_size(&req);
		gw_buf_reset(pb);
		rc = gw_buf_reserve(pb, len + 1);
		if (rc)
			gw_err_set(err, rc, "a remote-write request of %zu bytes does not fit", len);
		else {
			pb->len = gwrw__write_request__pack(&req, (uint8_t *)pb->data);
			pb->data[pb->len] = '\0';
		}
	}
	free(ts);
	free(tsp);
	free(lab);
	free(labp);
	free(smp);
	free(smpp);
	return rc;
}

int gw_rw_encode(const struct gw_snappy *sn, const struct gw_rw_series *s, size_t n,
		 const struct gw_labels *ext, struct gw_buf *pb, struct gw_buf *body, struct gw_err *err)
{
	int rc = gw_rw_marshal(s, n, ext, pb, err);
	if (rc)
		return rc;
	rc = gw_snappy_compress(sn, pb->data, pb->len, body);
	return rc ? gw_err_set(err, rc, "snappy compression failed: %s", gw_strerror(rc)) : 0;
}

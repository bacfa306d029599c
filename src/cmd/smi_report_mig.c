/*
 * smi_report_mig.c - the "MIG Device" sections of `smi -q`: one per MIG
 * device, after "MIG Mode", with its ids, shared engines, ECC and the
 * memory it shares with the other compute instances of its GPU instance.
 */
#include "cmd/smi_report_int.h"
#include "collect/mig.h"

#define MIB (1024ULL * 1024ULL)

static void count(struct gw_smi_rep *r, const char *label, const struct gw_mig *m, unsigned int v)
{
	if (m->attrs_valid)
		kv(r, 4, label, "%u", v);
	else
		kv(r, 4, label, "N/A");
}

static void mem(struct gw_smi_rep *r, const char *label, bool ok, unsigned long long bytes)
{
	if (ok)
		kv(r, 3, label, "%llu MiB", bytes / MIB);
	else
		kv(r, 3, label, "N/A");
}

static void device(struct gw_smi_rep *r, const struct gw_mig *m)
{
	head(r, 1, "MIG Device");
	kv(r, 2, "Index", "%u", m->index);
	kv(r, 2, "GPU Instance ID", "%u", m->gi);
	kv(r, 2, "Compute Instance ID", "%u", m->ci);
	head(r, 2, "Device Attributes");
	head(r, 3, "Shared");
	count(r, "Multiprocessor count", m, m->attrs.multiprocessorCount);
	count(r, "Copy Engine count", m, m->attrs.sharedCopyEngineCount);
	count(r, "Encoder count", m, m->attrs.sharedEncoderCount);
	count(r, "Decoder count", m, m->attrs.sharedDecoderCount);
	count(r, "OFA count", m, m->attrs.sharedOfaCount);
	count(r, "JPG count", m, m->attrs.sharedJpegCount);
	head(r, 2, "ECC Errors");
	head(r, 3, "Volatile");
	if (m->ecc_valid)
		kv(r, 4, "SRAM Uncorrectable", "%llu", (unsigned long long)m->ecc_unc_volatile);
	else
		kv(r, 4, "SRAM Uncorrectable", "N/A");
	head(r, 2, "Shared FB Memory Usage");
	mem(r, "Total", m->mem_valid, m->mem_total);
	mem(r, "Reserved", m->mem_valid, m->mem_reserved);
	mem(r, "Used", m->mem_valid, m->mem_used);
	mem(r, "Free", m->mem_valid, m->mem_free);
	head(r, 2, "Shared BAR1 Memory");
	mem(r, "Total", m->bar1_valid, m->bar1_total);
	mem(r, "Used", m->bar1_valid, m->bar1_used);
	mem(r, "Free", m->bar1_valid, m->bar1_free);
}

void gw_smi_rep_mig(struct gw_smi_rep *r)
{
	/* the XML report has no MIG device elements yet */
	if (r->xml || r->lost)
		return;
	struct gw_migs m;
	int rc = gw_mig_list(r->nv, r->d, &m);
	if (rc == GW_EGPULOST)
		r->lost = true;
	if (rc != 0)
		return;
	for (size_t i = 0; i < m.n; i++)
		device(r, &m.v[i]);
	gw_migs_release(&m);
}

#include "cmd/smi_table.h"

#include <string.h>

/*
 * Widths below are nvidia-smi's (r535 and newer): the GPU table has three
 * column groups of 41, 24 and 22 characters between the bars, 89 inside the
 * outer frame; the MIG table 18, 34, 11 and 23.
 */
#define W_ALL 89
#define GPU_NAME_MAX 27  /* longer names end in "..." */
#define PROC_NAME_W 37
#define PROC_NAME_MAX 36 /* longer names start with "..." so the binary stays visible */

static const char rule_all[] = "+-----------------------------------------------------------------------------------------+\n";
static const char rule_gpu[] = "+-----------------------------------------+------------------------+----------------------+\n";
static const char rule_mig[] = "+------------------+----------------------------------+-----------+-----------------------+\n";

static const char *const gpu_head[] = {
	"| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n",
	"| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n",
	"|                                         |                        |               MIG M. |\n",
	"|=========================================+========================+======================|\n",
};

static const char *const mig_head[] = {
	"| MIG devices:                                                                            |\n",
	"+------------------+----------------------------------+-----------+-----------------------+\n",
	"| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |\n",
	"|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |\n",
	"|                  |                                  |        ECC|                       |\n",
	"|==================+==================================+===========+=======================|\n",
};

static const char *const proc_head[] = {
	"| Processes:                                                                              |\n",
	"|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n",
	"|        ID   ID                                                               Usage      |\n",
	"|=========================================================================================|\n",
};

static void put_lines(FILE *out, const char *const *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputs(lines[i], out);
}

const char *gw_smi_cell_mib(char *buf, size_t n, unsigned long long bytes)
{
	snprintf(buf, n, "%lluMiB", bytes / (1024ULL * 1024ULL));
	return buf;
}

/* "NVIDIA GeForce RTX 2080 SUPER" -> "NVIDIA GeForce RTX 2080 ..." */
static const char *fit_right(char *buf, size_t n, const char *s, size_t max)
{
	if (strlen(s) <= max)
		snprintf(buf, n, "%s", s);
	else
		snprintf(buf, n, "%.*s...", (int)(max - 3), s);
	return buf;
}

/* "/very/long/path/bin/python" -> "...ng/path/bin/python" */
static const char *fit_left(char *buf, size_t n, const char *s, size_t max)
{
	size_t len = strlen(s);
	if (len <= max)
		snprintf(buf, n, "%s", s);
	else
		snprintf(buf, n, "...%s", s + len - (max - 3));
	return buf;
}

static void render_head(FILE *out, const struct gw_smi_head *h)
{
	char stamp[64];
	if (strftime(stamp, sizeof(stamp), "%a %b %e %H:%M:%S %Y", &h->stamp) == 0)
		stamp[0] = '\0';
	/* nvidia-smi pads the ctime stamp to 31 columns */
	fprintf(out, "%-31s\n", stamp);
	fputs(rule_all, out);
	/* From the 6xx drivers on the line names the kernel and user-mode drivers. */
	int major = 0;
	sscanf(h->driver, "%d", &major);
	char line[W_ALL + 64];
	if (major >= 600)
		snprintf(line, sizeof(line), " NVIDIA-SMI %-23.23sKMD Version: %-14.14sCUDA UMD Version: %-9.9s",
			 h->smi_version, h->driver, h->cuda);
	else
		snprintf(line, sizeof(line), " NVIDIA-SMI %-23.23sDriver Version: %-15.15sCUDA Version: %-9.9s",
			 h->smi_version, h->driver, h->cuda);
	fprintf(out, "|%-*s|\n", W_ALL, line);
	fputs(rule_gpu, out);
	put_lines(out, gpu_head, sizeof(gpu_head) / sizeof(gpu_head[0]));
}

static void render_gpu(FILE *out, const struct gw_smi_gpu_row *g)
{
	char name[GPU_NAME_MAX + 1];
	fit_right(name, sizeof(name), g->name, GPU_NAME_MAX);
	fprintf(out, "|%4u  %-27s    %-3s |   %-16s %3s |%21s |\n", g->index, name, g->persistence, g->bus_id,
		g->disp, g->ecc);
	fprintf(out, "|%4s%6s%6s%16s / %5s |%11s / %9s |%8s%13s |\n", g->fan, g->temp, g->perf, g->pwr_use,
		g->pwr_cap, g->mem_used, g->mem_total, g->util, g->compute);
	fprintf(out, "|%41s|%24s|%21s |\n", "", "", g->mig);
	fputs(rule_gpu, out);
}

static void render_mig(FILE *out, const struct gw_smi_mig_row *m)
{
	fprintf(out, "|%3u%5u%4u%4u  |%19s / %8s    |%3s%7s |%3s%4s%5s%5s%5s |\n", m->gpu, m->gi, m->ci, m->dev,
		m->mem_used, m->mem_total, m->sm, m->ecc, m->ce, m->enc, m->dec, m->ofa, m->jpg);
	fprintf(out, "|%18s|%19s / %8s    |%11s|%23s|\n", "", m->bar1_used, m->bar1_total, "", "");
	fputs(rule_mig, out);
}

static void render_proc(FILE *out, const struct gw_smi_proc_row *p)
{
	char name[PROC_NAME_MAX + 1];
	fit_left(name, sizeof(name), p->name, PROC_NAME_MAX);
	fprintf(out, "|%5u", p->gpu);
	/* "N/A" sits one column right of where an instance id would end */
	if (strcmp(p->gi, "N/A") == 0)
		fprintf(out, "%6s%5s", p->gi, p->ci);
	else
		fprintf(out, "%5s%5s ", p->gi, p->ci);
	fprintf(out, "%16u%7s   %-*s%9s |\n", p->pid, p->type, PROC_NAME_W, name, p->mem);
}

void gw_smi_table_render(FILE *out, const struct gw_smi_table *t)
{
	render_head(out, &t->head);
	for (size_t i = 0; i < t->ngpus; i++)
		render_gpu(out, &t->gpus[i]);
	fputc('\n', out);
	if (t->nmigs) {
		fputs(rule_all, out);
		put_lines(out, mig_head, sizeof(mig_head) / sizeof(mig_head[0]));
		for (size_t i = 0; i < t->nmigs; i++)
			render_mig(out, &t->migs[i]);
		fputc('\n', out);
	}
	fputs(rule_all, out);
	put_lines(out, proc_head, sizeof(proc_head) / sizeof(proc_head[0]));
	if (t->nprocs == 0)
		fprintf(out, "|  %-87s|\n", "No running processes found");
	for (size_t i = 0; i < t->nprocs; i++)
		render_proc(out, &t->procs[i]);
	fputs(rule_all, out);
}

void gw_smi_list_gpu(FILE *out, unsigned int index, const char *name, const char *uuid)
{
	fprintf(out, "GPU %u: %s (UUID: %s)\n", index, name, uuid);
}

void gw_smi_list_mig(FILE *out, const char *profile, unsigned int dev, const char *uuid)
{
	fprintf(out, "  MIG %-12sDevice %2u: (UUID: %s)\n", profile, dev, uuid);
}

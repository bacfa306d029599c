/*
 * top.c - `gpuwatch top`: the live terminal view of every GPU of the node,
 * its recent history and the processes behind the load.
 *
 * The sampler thread reads NVML; this file runs the UI thread: it copies
 * each new frame into the model (src/ui/model.h), reacts to keys and
 * redraws (src/ui/draw.h). It waits in getch() with a timeout that ends
 * just after the sampler's next tick, so an idle top wakes once per
 * refresh. Changing the refresh interval restarts the sampler with the new
 * interval; the history is kept (charts are by time, not by sample).
 *
 * With --remote or --prometheus there is no sampler: a worker thread asks
 * the agents or the Prometheus server over HTTP (src/ui/remote.h) and
 * publishes a snapshot per refresh; the UI thread waits in poll() on the
 * terminal and the worker's descriptor, so keys and redraws never wait for
 * the network.
 *
 * The terminal is put back on every way out: q, Ctrl-C (a key in raw
 * mode), and SIGINT/SIGTERM/SIGHUP from outside, which set a flag the loop
 * sees at its next wake-up (getch and poll return early when a signal
 * arrives).
 */
#include "cmd/cmd.h"
#include "collect/sampler.h"
#include "core/err.h"
#include "promql/ast.h"
#include "ui/draw.h"
#include "ui/format.h"
#include "ui/remote.h"

#include <curses.h>
#include <dlfcn.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HIST_SAMPLES 3600 /* an hour at the default 1 s */
#define TARGETS_MAX 256

/*
 * The one mutable file-scope variable: a signal handler can only talk to
 * the program through a volatile sig_atomic_t, and top is one per process.
 */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static const unsigned int intervals_ms[] = {100, 200, 500, 1000, 2000, 5000, 10000};
static const int64_t windows_ms[] = {60000, 300000, 900000, 3600000};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* What the command line asked for. */
struct top_opts {
	unsigned int interval_ms;
	int64_t window_ms;
	bool ascii, nocolor;
	bool prometheus;
	int64_t forecast_window_ms; /* the local OOM forecast's trend window; 0: the model's default */
	char *targets_buf; /* --remote's list, split in place; ours */
	const char *targets[TARGETS_MAX];
	unsigned int ntargets;
};

struct top {
	struct gw_ui_remote *remote; /* --remote / --prometheus; then no NVML, no sampler */
	struct gw_nvml *nv;
	struct gw_gpu *gpus;
	unsigned int ngpus;
	struct gw_cgroup_src attr;
	struct gw_sampler *sampler;
	struct gw_ui_model model;
	struct gw_ui_view view;
	/* a signal waiting for confirmation */
	int pending_sig;
	unsigned int pending_pid;
};

static void usage(FILE *out)
{
	fputs("usage: gpuwatch [--sim SPEC] top [OPTIONS]\n\n"
	      "Live view of every GPU of this node: utilisation, memory, power, clocks,\n"
	      "throttle reasons and XID/ECC events, charts of the last minutes, and the\n"
	      "processes on the GPUs with their owners (user, container, pod, Slurm job).\n\n"
	      "    -d, --delay SECONDS   refresh interval, 0.1 .. 10 [default 1]\n"
	      "    -w, --window MINUTES  history window of the charts: 1, 5, 15, 60 [default 5]\n"
	      "    -c, --compact         one line per GPU (default: chosen by terminal size)\n"
	      "        --ascii           ASCII drawing even in a UTF-8 locale\n"
	      "        --no-color        no colour (also when NO_COLOR is set)\n"
	      "        --remote HOST:PORT,...  the GPUs of these gpuwatch agents together, each\n"
	      "                          row marked with its node (port 9400 when left out)\n"
	      "        --prometheus URL  every GPU a Prometheus server has (dcgm-exporter's\n"
	      "                          or gpuwatch's series), grouped by node\n"
	      "        --memory.forecast-window D  the OOM forecast's trend window, as the\n"
	      "                          agent's (1s .. 7d) [default 10m]\n"
	      "    -h, --help            this help\n\n"
	      "Every refresh --remote reads each agent's /metrics and --prometheus asks\n"
	      "Prometheus' HTTP API (/api/v1/query), with a 1 s timeout; a node that does\n"
	      "not answer stays listed as stale and is asked again every refresh. Charts\n"
	      "start with the history the source keeps (none from an agent run with\n"
	      "--no-history).\n\n"
	      "Each GPU row shows its health verdict (PASS, WARN or FAIL and the\n"
	      "failing systems, as `gpuwatch health` gives them; Enter shows the\n"
	      "incidents) and, while its memory grows, \"oom 42m\": the time until it is\n"
	      "full at its trend (red under an hour). Remote views show what the agent\n"
	      "computes (/api/v1/health, gpuwatch_memory_time_to_full_seconds) or\n"
	      "Prometheus has (gpuwatch_health_status); nothing where the source has none.\n\n"
	      "Keys: ? help, q quit, +/- refresh, w window, c layout, Enter detail,\n"
	      "Tab processes, </> sort column, r reverse, / filter, T/K signal,\n"
	      "b braille or block charts.\n",
	      out);
}

/* Simulated GPUs invent their pids; the simulator's cgroups stand in (as in the agent). */
static void attribution_source(struct gw_cgroup_src *src, struct gw_nvml *nv)
{
	src->root = "/";
	src->read_proc = !nv->simulated;
	src->sim_cgroup = NULL;
	if (nv->simulated)
		*(void **)&src->sim_cgroup = dlsym(nv->lib, "gwsim_process_cgroup");
}

/* Start a sampler at interval_ms with the terminal signals blocked in its threads. */
static int start_sampler(struct top *t, unsigned int interval_ms, struct gw_err *err)
{
	struct gw_sampler_opts so = {0};
	so.interval_ms = interval_ms;
	so.slow_interval_ms = interval_ms > 10000 ? interval_ms : 10000;
	so.proc_interval_ms = interval_ms > 2000 ? interval_ms : 2000;
	so.attr = &t->attr;
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int rc = gw_sampler_new(&t->sampler, t->nv, t->gpus, t->ngpus, &so, err);
	if (rc == 0)
		rc = gw_sampler_start(t->sampler, err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		gw_sampler_free(t->sampler);
		t->sampler = NULL;
	}
	return rc;
}

/* Copy the latest frame into the model; true when it was new. */
static bool pull_frame(struct top *t)
{
	const struct gw_frame *f = gw_sampler_acquire(t->sampler);
	bool changed = false;
	int rc = gw_ui_model_update(&t->model, f, &changed);
	gw_sampler_release(t->sampler, f);
	if (rc)
		snprintf(t->view.line, sizeof(t->view.line), "cannot update the view: %s", gw_strerror(rc));
	return changed;
}

/* --remote's comma-separated list (or --prometheus' one URL) into o->targets. */
static int set_targets(struct top_opts *o, const char *opt, const char *list, bool prometheus)
{
	if (o->ntargets) {
		fprintf(stderr, "gpuwatch top: give --remote or --prometheus once\n");
		return -1;
	}
	free(o->targets_buf);
	o->targets_buf = strdup(list);
	if (!o->targets_buf) {
		fprintf(stderr, "gpuwatch top: out of memory\n");
		return -1;
	}
	o->prometheus = prometheus;
	char *save = NULL;
	for (char *t = strtok_r(o->targets_buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (o->ntargets == TARGETS_MAX || (prometheus && o->ntargets == 1)) {
			fprintf(stderr, "gpuwatch top: %s takes %s\n", opt,
				prometheus ? "one URL" : "at most 256 agents");
			return -1;
		}
		o->targets[o->ntargets++] = t;
	}
	if (o->ntargets == 0) {
		fprintf(stderr, "gpuwatch top: %s needs %s\n", opt, prometheus ? "URL" : "HOST:PORT,...");
		return -1;
	}
	return 0;
}

static int opt_delay(struct top_opts *o, struct gw_ui_view *v, const char *opt, const char *val)
{
	(void)v;
	char *end;
	double s = strtod(val, &end);
	if (end == val || *end || !(s >= 0.1 && s <= 10)) {
		fprintf(stderr, "gpuwatch top: %s wants seconds from 0.1 to 10, got \"%s\"\n", opt, val);
		return -1;
	}
	o->interval_ms = (unsigned int)(s * 1000 + 0.5);
	return 0;
}

static int opt_window(struct top_opts *o, struct gw_ui_view *v, const char *opt, const char *val)
{
	(void)v;
	char *end;
	long mnt = strtol(val, &end, 10);
	if (end == val || *end || (mnt != 1 && mnt != 5 && mnt != 15 && mnt != 60)) {
		fprintf(stderr, "gpuwatch top: %s wants 1, 5, 15 or 60 minutes, got \"%s\"\n", opt, val);
		return -1;
	}
	o->window_ms = mnt * 60000;
	return 0;
}

static int opt_compact(struct top_opts *o, struct gw_ui_view *v, const char *opt, const char *val)
{
	(void)o, (void)opt, (void)val;
	v->mode = GW_MODE_COMPACT;
	return 0;
}

static int opt_ascii(struct top_opts *o, struct gw_ui_view *v, const char *opt, const char *val)
{
	(void)v, (void)opt, (void)val;
	o->ascii = true;
	return 0;
}

static int opt_nocolor(struct top_opts *o, struct gw_ui_view *v, const char *opt, const char *val)
{
	(void)v, (void)opt, (void)val;
	o->nocolor = true;
	return 0;
}

static int opt_forecast(struct top_opts *o, struct gw_ui_view *v, const char *opt, const char *val)
{
	(void)v;
	int64_t ms;
	if (gw_promql_duration(val, strlen(val), &ms) != 0 || ms < 1000 || ms > 7 * 86400000LL) {
		fprintf(stderr, "gpuwatch top: %s wants a duration from 1s to 7d, got \"%s\"\n", opt, val);
		return -1;
	}
	o->forecast_window_ms = ms;
	return 0;
}

static int opt_remote(struct top_opts *o, struct gw_ui_view *v, const char *opt, const char *val)
{
	(void)v;
	return set_targets(o, opt, val, false);
}

static int opt_prometheus(struct top_opts *o, struct gw_ui_view *v, const char *opt, const char *val)
{
	(void)v;
	return set_targets(o, opt, val, true);
}

/* Every option: its short and long names, what its value is (NULL: none) and what it sets. */
static const struct top_opt {
	const char *shortname, *longname;
	const char *value;
	int (*set)(struct top_opts *o, struct gw_ui_view *v, const char *opt, const char *val);
} top_optab[] = {
	{"-d", "--delay", "SECONDS", opt_delay},
	{"-w", "--window", "MINUTES", opt_window},
	{"-c", "--compact", NULL, opt_compact},
	{NULL, "--ascii", NULL, opt_ascii},
	{NULL, "--no-color", NULL, opt_nocolor},
	{NULL, "--remote", "HOST:PORT,...", opt_remote},
	{NULL, "--prometheus", "URL", opt_prometheus},
	{NULL, "--memory.forecast-window", "DURATION", opt_forecast},
};

/* The option a names, and where its value is: "--window=5" carries it, "-w 5" takes the next argument. */
static const struct top_opt *find_opt(const char *a, const char **inline_val)
{
	*inline_val = NULL;
	for (size_t i = 0; i < NELEM(top_optab); i++) {
		const struct top_opt *t = &top_optab[i];
		size_t n = strlen(t->longname);
		if ((t->shortname && strcmp(a, t->shortname) == 0) || strcmp(a, t->longname) == 0)
			return t;
		if (t->value && strncmp(a, t->longname, n) == 0 && a[n] == '=') {
			*inline_val = a + n + 1;
			return t;
		}
	}
	return NULL;
}

static bool is_opt(const char *a, const char **inline_val)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0 || find_opt(a, inline_val) != NULL;
}

static int parse_args(int argc, char **argv, struct top_opts *o, struct gw_ui_view *v)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 1;
		}
		const struct top_opt *t = find_opt(a, &val);
		if (!t) {
			fprintf(stderr, "gpuwatch top: unknown option '%s'\n", a);
			usage(stderr);
			return -1;
		}
		if (t->value && !val) {
			/* "--remote -c": the value was forgotten, not "-c" meant as a host */
			const char *next = i + 1 < argc ? argv[i + 1] : NULL, *ignored;
			if (!next || is_opt(next, &ignored)) {
				fprintf(stderr, "gpuwatch top: %s needs %s\n", a, t->value);
				return -1;
			}
			val = argv[++i];
		}
		if (t->value && !*val) {
			fprintf(stderr, "gpuwatch top: %s needs %s, got an empty value\n", t->longname, t->value);
			return -1;
		}
		if (t->set(o, v, t->longname, val) != 0)
			return -1;
	}
	return 0;
}

static void change_interval(struct top *t, int dir)
{
	size_t i = 0;
	while (i + 1 < NELEM(intervals_ms) && intervals_ms[i] < t->view.interval_ms)
		i++;
	if ((dir < 0 && i == 0) || (dir > 0 && i + 1 >= NELEM(intervals_ms)))
		return;
	unsigned int next = intervals_ms[dir > 0 ? i + 1 : i - 1];
	if (t->remote) { /* the worker picks it up at its next refresh */
		gw_ui_remote_set_interval(t->remote, next);
		t->view.interval_ms = next;
		return;
	}
	struct gw_err err;
	gw_err_clear(&err);
	gw_sampler_free(t->sampler);
	t->sampler = NULL;
	if (start_sampler(t, next, &err) != 0) {
		/* go back to the interval that worked */
		snprintf(t->view.line, sizeof(t->view.line), "cannot sample every %u ms: %.120s", next, err.msg);
		if (start_sampler(t, t->view.interval_ms, &err) != 0)
			stop_signal = SIGTERM;
		return;
	}
	t->view.interval_ms = next;
	t->model.last_seq = 0; /* the new sampler counts from 1 again */
	pull_frame(t);
}

/* Decide whether the selected process may be signalled, and ask. */
static void ask_signal(struct top *t, int sig)
{
	struct gw_ui_view *v = &t->view;
	if (!v->focus_procs || v->npview == 0) {
		snprintf(v->line, sizeof(v->line), "select a process first (Tab, then Up/Down)");
		return;
	}
	const struct gw_ui_proc *p = &t->model.procs[v->pview[v->sel_proc]];
	if (t->remote) { /* its pid means nothing on this machine */
		snprintf(v->line, sizeof(v->line), "pid %u runs on %.60s: remote processes are never signalled", p->pid,
			 p->node);
		return;
	}
	if (t->nv->simulated) { /* its pid may be a real, unrelated process here */
		snprintf(v->line, sizeof(v->line), "pid %u is a simulated process; nothing sent", p->pid);
		return;
	}
	if (kill((pid_t)p->pid, 0) != 0) {
		snprintf(v->line, sizeof(v->line), "cannot signal pid %u: %s", p->pid,
			 errno == EPERM ? "not your process" : strerror(errno));
		return;
	}
	t->pending_sig = sig;
	t->pending_pid = p->pid;
	snprintf(v->line, sizeof(v->line), "send SIG%s to pid %u (%.60s)? [y/N]", sig == SIGKILL ? "KILL" : "TERM",
		 p->pid, gw_proc_basename(p->cmd));
}

static void answer_signal(struct top *t, int key)
{
	struct gw_ui_view *v = &t->view;
	if (key == 'y' || key == 'Y') {
		if (kill((pid_t)t->pending_pid, t->pending_sig) == 0)
			snprintf(v->line, sizeof(v->line), "sent SIG%s to pid %u", t->pending_sig == SIGKILL ? "KILL" : "TERM",
				 t->pending_pid);
		else
			snprintf(v->line, sizeof(v->line), "kill %u: %s", t->pending_pid, strerror(errno));
	} else {
		snprintf(v->line, sizeof(v->line), "nothing sent");
	}
	t->pending_sig = 0;
}

static void edit_filter(struct gw_ui_view *v, int key)
{
	size_t len = strlen(v->filter);
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		v->editing_filter = false;
	} else if (key == 27) { /* Esc */
		v->filter[0] = '\0';
		v->editing_filter = false;
	} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (len)
			v->filter[len - 1] = '\0';
	} else if (key >= 32 && key < 127 && len + 1 < sizeof(v->filter)) {
		v->filter[len] = (char)key;
		v->filter[len + 1] = '\0';
	}
	v->sel_proc = 0;
}

static void move_sel(struct gw_ui_view *v, int d)
{
	if (v->focus_procs) {
		if (d < 0 && v->sel_proc > 0)
			v->sel_proc--;
		else if (d > 0 && v->sel_proc + 1 < v->npview)
			v->sel_proc++;
	} else {
		if (d < 0 && v->sel_gpu > 0)
			v->sel_gpu--;
		else if (d > 0 && v->sel_gpu + 1 < v->m->ngpus)
			v->sel_gpu++;
	}
}

/* One key; returns false to quit. */
static bool on_key(struct top *t, int key)
{
	struct gw_ui_view *v = &t->view;
	if (key == 3) /* Ctrl-C in raw mode */
		return false;
	if (t->pending_sig) {
		answer_signal(t, key);
		return true;
	}
	if (v->editing_filter) {
		edit_filter(v, key);
		return true;
	}
	if (v->help && key != KEY_RESIZE) {
		v->help = false;
		return key != 'q';
	}
	if (key != KEY_RESIZE)
		v->line[0] = '\0';
	switch (key) {
	case 'q': case 'Q': return false;
	case '?': case 'h': case KEY_F(1): v->help = true; break;
	case '+': case '=': change_interval(t, -1); break;
	case '-': case '_': change_interval(t, +1); break;
	case 'w': {
		size_t i = 0;
		while (i < NELEM(windows_ms) && windows_ms[i] != v->window_ms)
			i++;
		v->window_ms = windows_ms[(i + 1) % NELEM(windows_ms)];
		break;
	}
	case 'c': v->mode = (enum gw_ui_mode)((v->mode + 1) % 3); break;
	case KEY_UP: case 'k': move_sel(v, -1); break;
	case KEY_DOWN: case 'j': move_sel(v, +1); break;
	case '\t': v->focus_procs = !v->focus_procs; break;
	case '\n': case '\r': case KEY_ENTER: v->detail = true; v->focus_procs = false; break;
	case 27: case KEY_BACKSPACE: case 127: v->detail = false; break;
	case '<': v->sort = gw_ui_pcol_step(v->sort, -1, t->model.remote);
		v->desc = gw_ui_pcol_at(v->sort)->desc_first; break;
	case '>': v->sort = gw_ui_pcol_step(v->sort, +1, t->model.remote);
		v->desc = gw_ui_pcol_at(v->sort)->desc_first; break;
	case 'b':
		v->blocks = !v->blocks;
		if (!v->utf8)
			snprintf(v->line, sizeof(v->line), "charts are ASCII: braille and blocks need a UTF-8 locale");
		break;
	case 'r': v->desc = !v->desc; break;
	case '/': v->editing_filter = true; v->filter[0] = '\0'; v->detail = false; break;
	case 'T': ask_signal(t, SIGTERM); break;
	case 'K': ask_signal(t, SIGKILL); break;
	default: break;
	}
	return true;
}

/* ms until just after the sampler's next tick (ticks are wall-clock aligned). */
static int wait_ms(unsigned int interval_ms)
{
	int64_t now = gw_now_ms();
	int64_t next = (now / interval_ms + 1) * interval_ms;
	return (int)(next - now) + 15;
}

static void loop(struct top *t)
{
	bool dirty = true;
	int idle_wait = wait_ms(t->view.interval_ms);
	while (!stop_signal) {
		if (pull_frame(t))
			dirty = true;
		if (dirty) {
			gw_ui_draw(&t->view);
			refresh();
			dirty = false;
			idle_wait = wait_ms(t->view.interval_ms);
		} else {
			idle_wait = 20; /* the tick is due but its frame not yet published */
		}
		timeout(idle_wait);
		int key = getch();
		if (key == ERR)
			continue;
		do { /* drain what is queued (a paste, held keys) before drawing */
			if (!on_key(t, key))
				return;
			timeout(0);
		} while ((key = getch()) != ERR);
		dirty = true;
	}
}

/* Remote views: wait for a key, a snapshot from the worker, or a signal, whichever comes first. */
static void loop_remote(struct top *t)
{
	bool dirty = true;
	int fd = gw_ui_remote_fd(t->remote);
	while (!stop_signal) {
		struct gw_ui_rsnap *s = gw_ui_remote_take(t->remote);
		if (s) {
			bool first = t->model.gpus == NULL;
			int rc = gw_ui_model_update_remote(&t->model, s);
			gw_ui_rsnap_free(s);
			if (rc)
				snprintf(t->view.line, sizeof(t->view.line), "cannot update the view: %s", gw_strerror(rc));
			else if (first)
				t->view.line[0] = '\0';
			dirty = true;
		}
		if (dirty) {
			gw_ui_draw(&t->view);
			refresh();
			dirty = false;
		}
		struct pollfd p[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
		int n = poll(p, 2, 1000);
		if (n == 0 || (n > 0 && !p[0].revents))
			continue; /* a snapshot (taken above), or a quiet second */
		timeout(0); /* a key, or a signal (a resize comes as KEY_RESIZE) */
		int key;
		while ((key = getch()) != ERR) {
			if (!on_key(t, key))
				return;
			dirty = true;
		}
	}
}

static void screen_open(struct gw_ui_view *v, bool ascii, bool nocolor)
{
	initscr();
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	const char *nc = getenv("NO_COLOR");
	v->color = !nocolor && !(nc && nc[0]) && has_colors();
	if (v->color) {
		start_color();
		gw_ui_draw_init_colors();
	}
	v->utf8 = !ascii && gw_ui_locale_utf8();
}

/* The view's fixed settings, shared by the local and the remote view. */
static void view_init(struct top *t, const struct top_opts *o)
{
	struct gw_ui_view *v = &t->view;
	v->m = &t->model;
	v->interval_ms = o->interval_ms;
	v->window_ms = o->window_ms;
	v->sort = GW_PC_MEM;
	v->desc = true;
	if (t->remote) {
		const char *u = o->targets[0], *h = strstr(u, "://");
		if (o->prometheus)
			snprintf(v->host, sizeof(v->host), "via %.56s", h ? h + 3 : u);
		else
			snprintf(v->host, sizeof(v->host), "remote");
		snprintf(v->line, sizeof(v->line), "asking %s%.120s ...", o->prometheus ? "" : "the agents: ",
			 o->prometheus ? u : o->targets_buf);
		return;
	}
	v->simulated = t->nv->simulated;
	if (gethostname(v->host, sizeof(v->host)) != 0)
		snprintf(v->host, sizeof(v->host), "localhost");
	v->host[sizeof(v->host) - 1] = '\0';
}

/* The local source: NVML's GPUs, the sampler, the first frame. */
static int open_local(struct top *t, const struct top_opts *o, struct gw_err *err)
{
	attribution_source(&t->attr, t->nv);
	int rc = gw_nvml_gpus_list(t->nv, &t->gpus, &t->ngpus, err);
	if (rc == 0 && t->ngpus == 0)
		rc = gw_err_set(err, GW_ENOTFOUND, "no GPUs found");
	if (rc == 0)
		rc = start_sampler(t, o->interval_ms, err);
	if (rc == 0)
		pull_frame(t);
	return rc;
}

/* libcurl, the targets and the worker. */
static int open_remote(struct top *t, const struct top_opts *o, struct gw_err *err)
{
	struct gw_ui_remote_opts ro = {0};
	ro.targets = o->targets;
	ro.ntargets = o->ntargets;
	ro.prometheus = o->prometheus;
	ro.interval_ms = o->interval_ms;
	ro.window_ms = o->window_ms;
	int rc = gw_ui_remote_new(&t->remote, &ro, err);
	if (rc == 0)
		rc = gw_ui_remote_start(t->remote, err);
	return rc;
}

static void run_screen(struct top *t, const struct top_opts *o)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: getch must return */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	screen_open(&t->view, o->ascii, o->nocolor);
	if (t->remote)
		loop_remote(t);
	else
		loop(t);
	endwin();
}

int gw_cmd_top(int argc, char **argv, const struct gw_cli *cli)
{
	struct top t;
	memset(&t, 0, sizeof(t));
	struct top_opts o = {.interval_ms = 1000, .window_ms = 300000};
	int rc = parse_args(argc, argv, &o, &t.view);
	if (rc) {
		free(o.targets_buf);
		return rc > 0 ? 0 : GW_EXIT_BADARG;
	}
	/* NVML first, so a node without a driver gets smi's message and code */
	if (!o.ntargets && (rc = gw_cli_open_nvml(cli, &t.nv)) != 0)
		return rc;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "gpuwatch top: needs a terminal; for logs use 'gpuwatch dmon' or 'gpuwatch smi -l'\n");
		gw_nvml_close(t.nv);
		free(o.targets_buf);
		return GW_EXIT_BADARG;
	}
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C"); /* numbers in URLs and on screen with a decimal point */
	struct gw_err err;
	gw_err_clear(&err);
	rc = gw_ui_model_init(&t.model, HIST_SAMPLES);
	t.model.forecast_window_ms = o.forecast_window_ms;
	if (rc == 0)
		rc = o.ntargets ? open_remote(&t, &o, &err) : open_local(&t, &o, &err);
	if (rc) {
		fprintf(stderr, "gpuwatch top: %s\n", err.msg[0] ? err.msg : gw_strerror(rc));
	} else {
		view_init(&t, &o);
		run_screen(&t, &o);
	}
	gw_ui_remote_free(t.remote);
	gw_sampler_free(t.sampler);
	gw_ui_model_release(&t.model);
	free(t.view.pview);
	free(t.gpus);
	gw_nvml_close(t.nv);
	free(o.targets_buf);
	if (rc == GW_EINVAL && o.ntargets)
		return GW_EXIT_BADARG;
	if (rc == GW_ENOLIB || (rc && o.ntargets))
		return 1;
	return rc ? GW_EXIT_OTHER : 0;
}

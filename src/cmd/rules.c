/*
 * rules.c - `gpuwatch rules check` and `gpuwatch rules test`: the verdicts,
 * exit codes and messages of `promtool check rules` and `promtool test
 * rules`, from the same rule loader and evaluator the agent runs.
 */
#include "cmd/cmd.h"

#include "core/buf.h"
#include "rules/rulefile.h"
#include "rules/unittest.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* promtool's exit codes: 1 for a failed check and for a usage error, 3 for lint problems with --lint-fatal. */
#define EXIT_USAGE 1
#define EXIT_CHECK_FAILED 1
#define EXIT_LINT_FATAL 3

static void usage(FILE *out)
{
	fprintf(out, "usage: gpuwatch rules check [options] FILE...\n"
		     "       gpuwatch rules test [options] FILE...\n\n"
		     "Check Prometheus rule files, or run their unit tests, as promtool does.\n\n"
		     "check: every file is read and checked as Prometheus 2.42 loads rule files: YAML,\n"
		     "  known keys, PromQL expressions, label names, templates of alerting rules.\n"
		     "  Errors read \"FILE: LINE:COL: what\". Exit 0 when all pass, 1 when any fails.\n"
		     "  --lint=duplicate-rules|all|none   report recording rules that record the same\n"
		     "                                    series twice (default duplicate-rules)\n"
		     "  --lint-fatal                      lint problems exit 3\n\n"
		     "test: unit-test files in promtool's format (rule_files, evaluation_interval,\n"
		     "  group_eval_order, tests with input_series, alert_rule_test, promql_expr_test,\n"
		     "  external_labels, external_url), evaluated by the agent's own rule evaluator.\n"
		     "  Exit 0 when every test passes, 1 otherwise.\n\n"
		     "  -h, --help                        show this help\n");
}

static void print_err(void *ctx, const char *msg)
{
	bool *failed = ctx;
	if (!*failed)
		fprintf(stderr, "  FAILED:\n");
	*failed = true;
	fprintf(stderr, "%s\n", msg);
}

struct lint {
	size_t n;
	struct gw_buf text;
};

static void collect_dup(void *ctx, const char *msg)
{
	struct lint *l = ctx;
	gw_buf_printf(&l->text, "%s\n", msg);
}

/* Files to read after the options; like promtool, none, or a path that does not exist, is a usage error. */
static int files_given(const char *sub, const char *what, int first, int argc, char **argv)
{
	if (first >= argc) {
		fprintf(stderr, "gpuwatch rules %s: no %s given; see 'gpuwatch rules --help'\n", sub, what);
		return -1;
	}
	for (int i = first; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "gpuwatch rules %s: path '%s' does not exist\n", sub, argv[i]);
			return -1;
		}
	}
	return 0;
}

static int check(int argc, char **argv)
{
	bool lint = true, lint_fatal = false;
	int first = argc;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return gw_cli_finish_stdout();
		} else if (!strncmp(a, "--lint=", 7) || (!strcmp(a, "--lint") && i + 1 < argc)) {
			const char *v = a[6] == '=' ? a + 7 : argv[++i];
			if (!strcmp(v, "none"))
				lint = false;
			else if (!strcmp(v, "all") || !strcmp(v, "duplicate-rules"))
				lint = true;
			else {
				fprintf(stderr, "gpuwatch rules check: --lint %s: not one of all, duplicate-rules, none\n", v);
				return EXIT_USAGE;
			}
		} else if (!strcmp(a, "--lint-fatal")) {
			lint_fatal = true;
		} else if (!strcmp(a, "--")) {
			first = i + 1;
			break;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "gpuwatch rules check: unknown option '%s'; see 'gpuwatch rules --help'\n", a);
			return EXIT_USAGE;
		} else {
			first = i;
			break;
		}
	}
	if (files_given("check", "rule files", first, argc, argv) != 0)
		return EXIT_USAGE;
	int rc = 0;
	for (int i = first; i < argc; i++) {
		printf("Checking %s\n", argv[i]);
		fflush(stdout);
		struct gw_ruleset set = {0};
		struct gw_err err = {0};
		bool failed = false;
		int lrc = gw_rules_load_file_each(&set, argv[i], print_err, &failed, &err);
		if (lrc && !failed)
			print_err(&failed, err.msg);
		if (failed) {
			rc = EXIT_CHECK_FAILED;
		} else {
			struct lint l = {0};
			gw_buf_init(&l.text, 1 << 20);
			l.n = lint ? gw_ruleset_duplicates(&set, collect_dup, &l) : 0;
			if (l.n) {
				fprintf(stderr, "  FAILED:\nlint error %zu duplicate rule(s) found.\n%s"
						"Might cause inconsistency while recording expressions\n",
					l.n, l.text.data ? l.text.data : "");
				if (lint_fatal && rc == 0)
					rc = EXIT_LINT_FATAL;
			} else {
				printf("  SUCCESS: %zu rules found\n", gw_ruleset_count(&set));
			}
			gw_buf_release(&l.text);
		}
		printf("\n");
		gw_ruleset_release(&set);
	}
	int out = gw_cli_finish_stdout();
	return out ? out : rc;
}

static int test(int argc, char **argv)
{
	int first = argc;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return gw_cli_finish_stdout();
		} else if (!strcmp(a, "--")) {
			first = i + 1;
			break;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "gpuwatch rules test: unknown option '%s'; see 'gpuwatch rules --help'\n", a);
			return EXIT_USAGE;
		} else {
			first = i;
			break;
		}
	}
	if (files_given("test", "unit-test files", first, argc, argv) != 0)
		return EXIT_USAGE;
	int rc = gw_rules_unittest((const char *const *)argv + first, (size_t)(argc - first), stdout, stderr);
	int out = gw_cli_finish_stdout();
	return out ? out : rc;
}

int gw_cmd_rules(int argc, char **argv, const struct gw_cli *cli)
{
	(void)cli;
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : gw_cli_finish_stdout();
	}
	if (!strcmp(argv[1], "check"))
		return check(argc - 2, argv + 2);
	if (!strcmp(argv[1], "test"))
		return test(argc - 2, argv + 2);
	fprintf(stderr, "gpuwatch rules: unknown subcommand '%s' (check, test); see 'gpuwatch rules --help'\n", argv[1]);
	return EXIT_USAGE;
}

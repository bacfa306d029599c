/*
 * driver.c - runs a fuzz target over files and directories of inputs, for
 * builds without libFuzzer: `fuzz_NAME DIR|FILE...`. Prints the closing
 * line "N passed, 0 failed"; a target that aborts fails the run.
 */
#include "fuzz.h"

#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fuzz: open %s failed\n", path);
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	/* An exact-size copy, so ASan sees any read past the input. */
	uint8_t *in = malloc(n ? n : 1);
	memcpy(in, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(in, n);
	free(in);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0, bad = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "fuzz: %s: no such file or directory\n", argv[i]);
			bad++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad += run_file(argv[i]) != 0;
			files++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			bad += run_file(path) != 0;
			files++;
		}
		if (d)
			closedir(d);
	}
	if (files == 0) {
		fprintf(stderr, "fuzz: no inputs\n");
		bad++;
	}
	printf("%d passed, %d failed\n", files - bad, bad);
	return bad ? 1 : 0;
}

/* assets.c - looking up the web page's built-in files (assets.h). */
#include "web/assets.h"

#include <string.h>

const struct gw_asset *gw_web_asset(const char *path)
{
	for (const struct gw_asset *a = gw_web_assets; a->path; a++)
		if (strcmp(a->path, path) == 0)
			return a;
	return NULL;
}

/*
 * DOC: conf-golden, the driver of the configuration golden tests.
 *
 * "conf-golden FILE" prints the canonical dump of FILE and exits 0, or
 * prints the error list and exits 1. "conf-golden --defaults" dumps the
 * built-in defaults (what conf/ibsmd.conf must contain).
 */
#include <stdio.h>
#include <string.h>

#include "conf/conf.h"

int main(int argc, char **argv)
{
	struct conf_errors errs;
	struct sm_conf c;
	int n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: conf-golden FILE | --defaults\n");
		return 2;
	}
	conf_errors_init(&errs);
	if (!strcmp(argv[1], "--defaults"))
		conf_defaults(&c);
	else
		n = conf_load_file(&c, argv[1], &errs);
	if (n)
		conf_errors_print(&errs, stdout);
	else
		conf_dump(&c, stdout);
	conf_errors_free(&errs);
	conf_free(&c);
	return n ? 1 : 0;
}

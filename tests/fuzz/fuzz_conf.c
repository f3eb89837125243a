/*
 * DOC: libFuzzer target for the configuration parser.
 *
 * Any input must parse without a crash, leak or sanitizer report. When it
 * parses cleanly, its canonical dump must parse cleanly too and dump to the
 * same text (the round trip the golden tests check on a few files).
 * Inputs above CONF_MAX_FILE are cut: past that the parser only counts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dump(const struct sm_conf *c, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		abort();
	conf_dump(c, f);
	fclose(f);
	return text;
}

static void check_round_trip(const struct sm_conf *c)
{
	struct conf_errors errs;
	struct sm_conf again;
	size_t len, len2;
	char *text = dump(c, &len), *text2;

	conf_errors_init(&errs);
	if (conf_parse_buf(&again, "dump", text, len, &errs) != 0) {
		conf_errors_print(&errs, stderr);
		abort();
	}
	text2 = dump(&again, &len2);
	if (len != len2 || memcmp(text, text2, len))
		abort();
	free(text);
	free(text2);
	conf_errors_free(&errs);
	conf_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf_errors errs;
	struct sm_conf c;

	if (size > CONF_MAX_FILE + 1)
		size = CONF_MAX_FILE + 1;
	conf_errors_init(&errs);
	if (conf_parse_buf(&c, "fuzz", (const char *)data, size, &errs) == 0)
		check_round_trip(&c);
	if (errs.n > CONF_MAX_ERRORS)
		abort();
	conf_errors_free(&errs);
	conf_free(&c);
	return 0;
}

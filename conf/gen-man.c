/*
 * DOC: gen-man, writes ibsmd.conf(5) from a template and the option table.
 *
 * The template is plain man(7) text; its line "@OPTIONS@" becomes one .TP
 * entry per option, in table order, so the page can never list an option
 * the parser does not know or miss one it does.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "conf/conf.h"

/* Text for roff: escape backslashes, '-' and '"', and keep a leading '.' or
 * '\'' from being read as a request; a default value may break after a
 * comma (long lists such as qos_vlarb_low's). */
static void roff_text_breaking(const char *s, FILE *out, bool comma_breaks)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else if (*s == '"')
			fputs("\\(dq", out);
		else if (*s == ',' && comma_breaks)
			fputs(",\\:", out);
		else
			fputc(*s, out);
	}
}

static void roff_text(const char *s, FILE *out)
{
	roff_text_breaking(s, out, false);
}

static void man_option(const struct conf_opt *o, FILE *out)
{
	char syn[160];

	conf_opt_syntax(o, syn, sizeof(syn));
	fputs(".TP\n.B ", out);
	roff_text(o->name, out);
	fputs("\n", out);
	roff_text(o->help, out);
	fputs("\n.br\n", out);
	roff_text(syn, out);
	fputs("; default\n.BR ", out);
	roff_text_breaking(o->def, out, true);
	fprintf(out, " ;\n%s.\n",
		o->reloadable ? "applied by a reload" : "needs a restart");
}

int main(int argc, char **argv)
{
	char line[1024];
	FILE *in;

	if (argc != 2) {
		fprintf(stderr, "usage: gen-man TEMPLATE > ibsmd.conf.5\n");
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		if (strcmp(line, "@OPTIONS@\n")) {
			fputs(line, stdout);
			continue;
		}
		for (size_t i = 0; i < conf_opt_count(); i++)
			man_option(conf_opt_at(i), stdout);
	}
	fclose(in);
	return ferror(stdout) ? 1 : 0;
}

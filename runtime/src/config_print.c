/*
 * config_print.c - `config print` (and, later, the HTTP endpoint's GET
 * /config): the effective settings after every layer, as YAML that
 * --config reads back or as one JSON object.  Every setting of the
 * table is printed, with its origin; an unset one as a comment saying
 * what that means.  librdkafka properties are those the layers gave
 * (the driver's own defaults, kafka_client.c, are not shown), each under
 * its section, a secret one's value as "***" (stoat_kafka_prop_is_secret).
 */
#include "config_impl.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Whether s can be written as a plain YAML scalar that reads back as itself. */
static bool yaml_plain_ok(const char *s)
{
	if (!*s || strcmp(s, "~") == 0 || strcasecmp(s, "null") == 0)
		return false;
	bool first_ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
			*s == '/' || *s == '.' || *s == '_' || (*s == '-' && s[1] >= '0' && s[1] <= '9');
	if (!first_ok)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("._/:,+-=@", *p)))
			return false;
	return true;
}

/*
 * Appends s as a YAML scalar: plain when it can be, else single-quoted
 * (quotes doubled), or double-quoted with escapes when it holds control
 * characters.
 */
static void yaml_put_scalar(stoat_buf *b, const char *s)
{
	if (yaml_plain_ok(s)) {
		stoat_buf_put(b, s, strlen(s));
		return;
	}
	bool control = false;
	for (const char *p = s; *p; p++)
		control |= (unsigned char)*p < 0x20 || *p == 0x7f;
	if (!control) {
		stoat_buf_put(b, "'", 1);
		for (const char *p = s; *p; p++)
			stoat_buf_put(b, *p == '\'' ? "''" : p, *p == '\'' ? 2 : 1);
		stoat_buf_put(b, "'", 1);
		return;
	}
	stoat_buf_put(b, "\"", 1);
	for (const char *p = s; *p; p++) {
		char esc[8];
		unsigned char c = (unsigned char)*p;
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof esc, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof esc, "\\x%02x", c);
		else
			snprintf(esc, sizeof esc, "%c", c);
		stoat_buf_put(b, esc, strlen(esc));
	}
	stoat_buf_put(b, "\"", 1);
}

/* Prints "key: value" padded, then "# origin"; indent for a section's properties. */
static void yaml_line(FILE *f, const char *indent, const char *key, const char *value, const char *origin)
{
	stoat_buf b;
	stoat_buf_init(&b);
	stoat_buf_put(&b, indent, strlen(indent));
	stoat_buf_put(&b, key, strlen(key));
	stoat_buf_put(&b, ": ", 2);
	yaml_put_scalar(&b, value);
	fprintf(f, "%-40.*s  # %s\n", (int)b.len, b.data, origin);
	stoat_buf_free(&b);
}

/* The value config print shows for a property: its own, or "***" for a secret. */
static const char *shown_value(const stoat_kafka_prop *p)
{
	return stoat_kafka_prop_is_secret(p->name) ? "***" : p->value;
}

/*
 * The properties of one section: kafka (no prefix), consumer or producer
 * (the name's prefix, removed); the name to print, or NULL for another
 * section's.
 */
static const char *in_section(const stoat_kafka_prop *p, const char *section)
{
	size_t n = strlen(section);
	bool client = strncmp(p->name, "consumer.", 9) == 0 || strncmp(p->name, "producer.", 9) == 0;
	if (strcmp(section, "kafka") == 0)
		return client ? NULL : p->name;
	return strncmp(p->name, section, n) == 0 && p->name[n] == '.' ? p->name + n + 1 : NULL;
}

/* The YAML form (see kafka.h). */
static void print_yaml(FILE *f, const stoat_kafka_options *opt)
{
	fputs("# The effective settings: app header < --config file < STOAT_* environment < flags;\n"
	      "# after each value, where it came from.\n",
	      f);
	for (size_t i = 0; i < stoat_setting_count; i++) {
		const stoat_setting *s = &stoat_settings[i];
		char value[4096];
		if (s->show(opt, value, sizeof value))
			yaml_line(f, "", s->name, value, opt->origin[i] ? opt->origin[i] : "default");
		else
			fprintf(f, "# %s: not set (%s)\n", s->name, s->when_unset ? s->when_unset : "no value");
	}
	static const char *const sections[] = { "kafka", "consumer", "producer" };
	for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++) {
		bool any = false;
		for (size_t i = 0; i < opt->prop_count; i++) {
			const char *name = in_section(&opt->props[i], sections[k]);
			if (!name)
				continue;
			if (!any)
				fprintf(f, "%s:\n", sections[k]);
			any = true;
			yaml_line(f, "  ", name, shown_value(&opt->props[i]), opt->props[i].where);
		}
	}
}

/* Appends a C string as a JSON string. */
static void json_put_str(stoat_buf *b, const char *s)
{
	stoat_buf_put_json_str(b, (stoat_str){ s, strlen(s) });
}

/* The JSON form (see kafka.h): values as the YAML has them, switches as booleans, unset ones null. */
static void print_json(FILE *f, const stoat_kafka_options *opt)
{
	stoat_buf b;
	stoat_buf_init(&b);
	stoat_buf_put(&b, "{\"settings\": {", 14);
	for (size_t i = 0; i < stoat_setting_count; i++) {
		const stoat_setting *s = &stoat_settings[i];
		char value[4096];
		if (i)
			stoat_buf_put(&b, ", ", 2);
		json_put_str(&b, s->name);
		stoat_buf_put(&b, ": ", 2);
		if (!s->show(opt, value, sizeof value))
			stoat_buf_put(&b, "null", 4);
		else if (s->is_switch)
			stoat_buf_put(&b, value, strlen(value)); /* true or false */
		else
			json_put_str(&b, value);
	}
	stoat_buf_put(&b, "}", 1);
	static const char *const sections[] = { "kafka", "consumer", "producer" };
	for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++) {
		stoat_buf_put(&b, ", ", 2);
		json_put_str(&b, sections[k]);
		stoat_buf_put(&b, ": {", 3);
		bool any = false;
		for (size_t i = 0; i < opt->prop_count; i++) {
			const char *name = in_section(&opt->props[i], sections[k]);
			if (!name)
				continue;
			if (any)
				stoat_buf_put(&b, ", ", 2);
			any = true;
			json_put_str(&b, name);
			stoat_buf_put(&b, ": ", 2);
			json_put_str(&b, shown_value(&opt->props[i]));
		}
		stoat_buf_put(&b, "}", 1);
	}
	stoat_buf_put(&b, "}\n", 2);
	fwrite(b.data, 1, b.len, f);
	stoat_buf_free(&b);
}

/* Prints the effective settings as YAML or JSON (see kafka.h). */
void stoat_kafka_config_print(FILE *f, const stoat_kafka_options *opt, bool json)
{
	if (json)
		print_json(f, opt);
	else
		print_yaml(f, opt);
}

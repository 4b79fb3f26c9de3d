/*
 * canonical_form.c - prints the Parsing Canonical Form of each schema file
 * given and its CRC-64-AVRO fingerprint (runtime/src/avro_schema.h), one
 * "FINGERPRINT FORM" line per file, for tests/avro/canonical to compare with
 * fastavro's.
 */
#include "avro_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		static char text[1 << 16];
		size_t n = fread(text, 1, sizeof text - 1, f);
		fclose(f);
		text[n] = '\0';
		char err[256];
		char *form = stoat_avro_canonical_form(text, err, sizeof err);
		if (!form) {
			printf("error %s\n", err);
			continue;
		}
		printf("%llu %s\n", (unsigned long long)stoat_avro_fingerprint(form, strlen(form)), form);
		free(form);
	}
	return 0;
}

/*
 * etlgen - writes the synthetic fixtures of fixtures/ (and larger ones for
 * the benchmark) with the project's own writer.
 *
 *   etlgen NAME FILE [RECORDS]
 *
 * NAME: mixed64, mixed32, compressed64, compressed32, win7cpu (the mixed
 * scenario of RECORDS records); system64, system32 (processes, threads and
 * images; RECORDS ignored); stackkeys64, stackkeys32 (compressed and deferred
 * stacks; RECORDS ignored); showcase64 (kernel, TraceLogging and manifest
 * events, fixtures/manifests/showcase.man) and partial64 (the same with one
 * event cut short); wpp64 (WPP messages of fixtures/tmf/); images32 (image
 * records whose layout their bytes decide, one that none fits).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

int scen_opts_by_name(const char *name, struct etlw_opts *o);

int scen_opts_by_name(const char *name, struct etlw_opts *o)
{
	etlw_default_opts(o);
	o->ncpu = 4;
	o->header_extra = 1;
	if (strcmp(name, "mixed64") == 0)
		return 0;
	if (strcmp(name, "mixed32") == 0) {
		o->ptr_size = 4;
		o->header_extra = 0;
		return 0;
	}
	if (strcmp(name, "compressed64") == 0) {
		o->compress = 1;
		o->buffer_size = 65536;
		return 0;
	}
	if (strcmp(name, "compressed32") == 0) {
		o->compress = 1;
		o->ptr_size = 4;
		o->buffer_size = 16384;
		return 0;
	}
	if (strcmp(name, "system64") == 0) {
		o->ncpu = 2;
		return 0;
	}
	if (strcmp(name, "system32") == 0) {
		o->ncpu = 2;
		o->ptr_size = 4;
		o->header_extra = 0;
		return 0;
	}
	if (strcmp(name, "showcase64") == 0 || strcmp(name, "partial64") == 0 || strcmp(name, "wpp64") == 0) {
		o->ncpu = 2;
		return 0;
	}
	if (strcmp(name, "stackkeys64") == 0) {
		o->ncpu = 2;
		return 0;
	}
	if (strcmp(name, "stackkeys32") == 0) {
		o->ncpu = 2;
		o->ptr_size = 4;
		o->header_extra = 0;
		return 0;
	}
	if (strcmp(name, "tables64") == 0 || strcmp(name, "kproviders64") == 0 || strcmp(name, "hostile64") == 0) {
		o->ncpu = 1;
		return 0;
	}
	if (strcmp(name, "profile64") == 0) {
		o->ncpu = 1;
		return 0;
	}
	if (strcmp(name, "images32") == 0) {
		o->ncpu = 1;
		o->ptr_size = 4;
		o->header_extra = 0;
		return 0;
	}
	if (strcmp(name, "win7cpu") == 0) {
		o->old_cpu_field = 1;
		o->ncpu = 3;
		o->os_build = 7601;
		o->header_extra = 0;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct etlw_opts o;
	uint8_t *data;
	size_t len;
	unsigned n = 400;
	FILE *f;

	if (argc < 3 || scen_opts_by_name(argv[1], &o) != 0) {
		fprintf(stderr, "usage: etlgen mixed64|mixed32|compressed64|compressed32|win7cpu|system64|system32|stackkeys64|stackkeys32|"
				"showcase64|partial64|wpp64|images32|tables64|kproviders64|hostile64 "
				"FILE [RECORDS]\n       etlgen profile64 FILE SPEC (see tests/writer/profile.c)\n");
		return 2;
	}
	if (argc > 3 && strcmp(argv[1], "profile64") != 0)
		n = (unsigned)strtoul(argv[3], NULL, 10);
	if ((strcmp(argv[1], "showcase64") == 0 ? scen_build_showcase(&o, 0, &data, &len)
	     : strcmp(argv[1], "partial64") == 0 ? scen_build_showcase(&o, 1, &data, &len)
	     : strcmp(argv[1], "wpp64") == 0 ? scen_build_wpp(&o, &data, &len)
	     : strcmp(argv[1], "images32") == 0 ? scen_build_images32(&o, &data, &len)
	     : strcmp(argv[1], "tables64") == 0 ? scen_build_tables(&o, &data, &len)
	     : strcmp(argv[1], "kproviders64") == 0 ? scen_build_kproviders(&o, &data, &len)
	     : strcmp(argv[1], "hostile64") == 0 ? scen_build_hostile(&o, &data, &len)
	     : strcmp(argv[1], "profile64") == 0 ? (argc > 3 ? scen_build_profile(&o, argv[3], &data, &len) : -1)
	     : strncmp(argv[1], "system", 6) == 0 ? scen_build_system(&o, &data, &len)
	     : strncmp(argv[1], "stackkeys", 9) == 0 ? scen_build_stackkeys(&o, &data, &len)
						     : scen_build_mixed(&o, n, &data, &len)) != 0) {
		fprintf(stderr, "etlgen: cannot build the trace\n");
		return 1;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "etlgen: cannot write %s\n", argv[2]);
		return 1;
	}
	free(data);
	return 0;
}

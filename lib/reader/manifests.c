/*
 * manifests.c - manifest sets shared by readers (etl_manifests_*): loaded
 * once, then read by any number of readers, on any threads - a batch of
 * inputs or a pool of workers parses a folder of manifests one time.  A set
 * is reference-counted (atomically); once a reader uses it, it no longer
 * changes.  It holds TMF files too (etl_manifests_add_tmf_path): the files of
 * TMF folders are then parsed once, by whichever reader first needs them.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "manifest/builtin.h"
#include "manifest/mxml.h"
#include "reader/reader.h"
#include "tmf/tmf.h"

struct etl_manifests {
	atomic_uint refs;
	atomic_int frozen; /* a reader uses it: no more loading */
	struct etl_manifest_db *db;
	struct tmf_db *tmf; /* NULL until a TMF path is added */
	struct etl_error err;
	int has_err;
	unsigned warnings;
};

struct etl_manifests *etl_manifests_new(void)
{
	struct etl_manifests *m = etl__calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->db = etl__manifest_db_new();
	if (!m->db) {
		etl__free(m);
		return NULL;
	}
	atomic_init(&m->refs, 1);
	atomic_init(&m->frozen, 0);
	return m;
}

static void set_error(struct etl_manifests *m, const struct etl_diag *d)
{
	m->err.code = d->code;
	m->err.fatal = 0;
	m->err.trace = -1;
	m->err.buffer = -1;
	m->err.offset = d->offset;
	etl_text_escape(d->msg, m->err.msg, sizeof(m->err.msg));
	m->has_err = 1;
}

/* Once a reader uses the set it no longer changes: says so. */
static int refuses_change(struct etl_manifests *m)
{
	struct etl_diag d;

	if (!atomic_load(&m->frozen))
		return 0;
	etl__diag_set(&d, ETL_E_MISUSE, ETL_OFFSET_NONE, "a manifest set in use by a reader does not change");
	set_error(m, &d);
	return 1;
}

static int add(struct etl_manifests *m, const char *path, const void *xml, size_t size, const char *name)
{
	struct etl_diag d;
	unsigned before;
	int st;

	if (!m || (!path && !xml))
		return ETL_E_MISUSE;
	if (refuses_change(m))
		return ETL_E_MISUSE;
	before = m->warnings;
	d.code = ETL_OK;
	st = path ? etl__manifest_db_load_path(m->db, path, &m->warnings, &d)
		  : etl__manifest_db_load_memory(m->db, xml, size, name ? name : "(memory)", &m->warnings, &d);
	if (st != ETL_OK || (m->warnings != before && d.code != ETL_OK))
		set_error(m, &d);
	return st;
}

int etl_manifests_add_tmf_path(struct etl_manifests *m, const char *path)
{
	struct etl_diag d;
	unsigned before;
	int st;

	if (!m || !path)
		return ETL_E_MISUSE;
	if (refuses_change(m))
		return ETL_E_MISUSE;
	if (!m->tmf && !(m->tmf = etl__tmf_new()))
		return ETL_E_NOMEM;
	before = etl__tmf_warnings(m->tmf);
	d.code = ETL_OK;
	st = etl__tmf_add_path(m->tmf, path, &d);
	m->warnings += etl__tmf_warnings(m->tmf) - before;
	if (st != ETL_OK || (etl__tmf_warnings(m->tmf) != before && d.code != ETL_OK))
		set_error(m, &d);
	return st;
}

int etl_manifests_add_path(struct etl_manifests *m, const char *path)
{
	return add(m, path, NULL, 0, NULL);
}

int etl_manifests_add_memory(struct etl_manifests *m, const void *xml, size_t size, const char *name)
{
	return add(m, NULL, xml ? xml : "", size, name);
}

unsigned etl_manifests_warnings(const struct etl_manifests *m)
{
	return m ? m->warnings : 0;
}

const struct etl_error *etl_manifests_error(const struct etl_manifests *m)
{
	return m && m->has_err ? &m->err : NULL;
}

void etl_manifests_free(struct etl_manifests *m)
{
	if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
		return;
	etl__manifest_db_free(m->db);
	etl__tmf_free(m->tmf);
	etl__free(m);
}

int etl_reader_use_manifests(struct etl_reader *r, struct etl_manifests *m)
{
	if (!r)
		return ETL_E_MISUSE;
	if (!m)
		return etl__reader_misuse(r, "NULL manifest set");
	if (r->state != ST_NEW)
		return etl__reader_misuse(r, "a manifest set is given before the first event is read");
	if (r->shared_manifests)
		return etl__reader_misuse(r, "a reader uses one manifest set");
	atomic_fetch_add(&m->refs, 1);
	atomic_store(&m->frozen, 1);
	r->shared_manifests = m;
	r->dec.shared = m->db;
	r->dec.shared_tmf = m->tmf;
	return ETL_OK;
}

/* ---- listing the providers known ---- */

static int list_db(const struct etl_manifest_db *db, etl_provider_fn fn, void *ctx)
{
	size_t i;
	int rc = ETL_OK;

	for (i = 0; db && i < db->nproviders && rc == ETL_OK; i++) {
		const struct etl_mprovider *p = db->providers[i];
		struct etl_provider_info info;

		memset(&info, 0, sizeof(info));
		info.guid = p->guid;
		info.name = p->name;
		info.source = p->source;
		info.decoder = ETL_DECODER_MANIFEST;
		info.events = p->nevents;
		rc = fn(&info, ctx);
	}
	return rc;
}

int etl_manifests_providers(struct etl_manifests *m, etl_provider_fn fn, void *ctx)
{
	struct etl_manifest_db *folders;
	size_t i;
	int rc;

	if (!m || !fn)
		return ETL_E_MISUSE;
	rc = list_db(m->db, fn, ctx);
	if (rc != ETL_OK || !m->db->ndocs)
		return rc;
	/* the files of folders, each parsed whole for the listing */
	if (!(folders = etl__manifest_db_new()))
		return ETL_E_NOMEM;
	for (i = 0; i < m->db->ndocs && rc == ETL_OK; i++) {
		struct etl_diag d;
		d.code = ETL_OK;
		if (etl__manifest_db_load_path(folders, m->db->docs[i], NULL, &d) == ETL_E_NOMEM)
			rc = ETL_E_NOMEM; /* (a file that cannot be read was said when it was given) */
	}
	if (rc == ETL_OK)
		rc = list_db(folders, fn, ctx);
	etl__manifest_db_free(folders);
	return rc;
}

int etl_builtin_providers(etl_provider_fn fn, void *ctx)
{
	size_t i;
	int rc = ETL_OK;

	if (!fn)
		return ETL_E_MISUSE;
	for (i = 0; i < etl__builtin_provider_count && rc == ETL_OK; i++) {
		const struct etl_builtin_provider *b = &etl__builtin_providers[i];
		struct etl_provider_info info;

		memset(&info, 0, sizeof(info));
		info.guid = b->guid;
		info.name = b->name;
		info.source = etl__builtin_sources[b->source].origin;
		info.license = etl__builtin_sources[b->source].license;
		info.decoder = ETL_DECODER_BUILTIN_MANIFEST;
		info.events = b->nevents;
		rc = fn(&info, ctx);
	}
	return rc;
}

/*
 * source.c - byte sources.
 *
 * Files are read with pread() into buffers the reader owns, never mapped:
 * memory stays bounded whatever the file size, and a file that shrinks
 * while it is read gives an I/O error rather than a SIGBUS.  The one
 * exception is the library's own temporary file (an unpacked container, a
 * spooled pipe): unlinked, written before it is read, nobody else can
 * shrink it, so its windows are mapped and read in place.
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "io/source.h"

#ifndef O_CLOEXEC
#  define O_CLOEXEC 0
#endif

void etl__source_init(struct etl_source *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

int etl__source_open_fd(struct etl_source *s, int fd, struct etl_diag *d)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot stat: %s", strerror(errno));
		return ETL_E_IO;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		etl__diag_set(d, ETL_E_UNSUPPORTED, ETL_OFFSET_NONE, "not a trace: %s",
			      S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
		return ETL_E_UNSUPPORTED;
	}
	s->fd = fd;
	s->size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode)) {
		off_t end = lseek(fd, 0, SEEK_END);
		if (end < 0) {
			etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot size device: %s",
				      strerror(errno));
			return ETL_E_IO;
		}
		s->size = (uint64_t)end;
	}
	return ETL_OK;
}

int etl__source_open_path(struct etl_source *s, const char *path, struct etl_diag *d)
{
	int fd, st;

	do {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot open: %s", strerror(errno));
		return ETL_E_IO;
	}
	st = etl__source_open_fd(s, fd, d);
	if (st != ETL_OK) {
		close(fd);
		s->fd = -1;
		return st;
	}
	s->close_fd = 1;
	return ETL_OK;
}

int etl__source_open_regular(struct etl_source *s, const char *path, struct etl_diag *d)
{
	struct stat sb;
	int fd;

	do { /* not blocking on a FIFO: it is refused below */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot open: %s", strerror(errno));
		return ETL_E_IO;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		etl__diag_set(d, ETL_E_UNSUPPORTED, ETL_OFFSET_NONE, "not a regular file");
		return ETL_E_UNSUPPORTED;
	}
	etl__source_init(s);
	s->fd = fd;
	s->close_fd = 1;
	s->size = (uint64_t)sb.st_size;
	return ETL_OK;
}

int etl__source_dup(struct etl_source *dst, const struct etl_source *src, struct etl_diag *d)
{
	etl__source_init(dst);
	if (src->temp) { /* (before mem: a mapped window's pages are its own) */
		etl__source_open_window(dst, src->temp, src->base, src->size);
		return ETL_OK;
	}
	if (src->mem) {
		etl__source_open_memory(dst, src->mem, (size_t)src->size);
		return ETL_OK;
	}
	if ((dst->fd = fcntl(src->fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot duplicate a descriptor: %s", strerror(errno));
		dst->fd = -1;
		return ETL_E_IO;
	}
	dst->close_fd = 1;
	dst->base = src->base;
	dst->size = src->size;
	return ETL_OK;
}

struct etl_tempfile *etl__tempfile_new(struct etl_diag *d)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	struct etl_tempfile *t;
	int fd, n;

	if (!dir || !*dir)
		dir = "/tmp";
	n = snprintf(path, sizeof(path), "%s/libetl-XXXXXX", dir);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot create a temporary file: TMPDIR is too long");
		return NULL;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot create a temporary file in %s: %s", dir,
			      strerror(errno));
		return NULL;
	}
	unlink(path); /* nothing to clean up: the file lives as long as its descriptor */
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	t = etl__calloc(1, sizeof(*t));
	if (!t) {
		close(fd);
		etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return NULL;
	}
	t->fd = fd;
	atomic_init(&t->refs, 1);
	return t;
}

void etl__tempfile_release(struct etl_tempfile *t)
{
	if (t && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
		close(t->fd);
		etl__free(t);
	}
}

/* Maps the pages of s's window, where the system lets it: s then reads them in place, and unmaps
 * them when closed. */
static void map_window(struct etl_source *s)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t from, len;
	void *p;

	if (page <= 0 || s->size == 0)
		return;
	from = s->base - s->base % (uint64_t)page;
	len = s->base - from + s->size;
	if (len > SIZE_MAX || (uint64_t)(off_t)from != from)
		return; /* (a 32-bit system's address space) */
	p = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, s->fd, (off_t)from);
	if (p == MAP_FAILED)
		return;
	s->map = p;
	s->map_len = (size_t)len;
	s->mem = (const uint8_t *)p + (s->base - from);
}

void etl__source_open_window(struct etl_source *s, struct etl_tempfile *t, uint64_t base, uint64_t size)
{
	etl__source_init(s);
	s->temp = t;
	atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
	s->fd = t->fd;
	s->base = base;
	s->size = size;
	map_window(s);
}

/* Writes all of p at off; 0, or -1 with errno. */
static int write_all(int fd, const uint8_t *p, size_t n, uint64_t off)
{
	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

int etl__source_spool_fd(struct etl_source *s, int fd, uint64_t limit, struct etl_diag *d)
{
	enum { CHUNK = 1 << 16 };
	struct etl_tempfile *tmp = etl__tempfile_new(d);
	uint8_t *buf = tmp ? etl__malloc(CHUNK) : NULL;
	uint64_t total = 0;
	int st = ETL_OK;

	if (!tmp || !buf) {
		etl__tempfile_release(tmp);
		if (tmp)
			etl__diag_set(d, ETL_E_NOMEM, ETL_OFFSET_NONE, "out of memory");
		return tmp ? ETL_E_NOMEM : d->code;
	}
	for (;;) {
		ssize_t got = read(fd, buf, CHUNK);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			etl__diag_set(d, st = ETL_E_IO, total, "read failed: %s", strerror(errno));
			break;
		}
		if (got == 0)
			break;
		if ((uint64_t)got > limit - total) {
			etl__diag_set(d, st = ETL_E_LIMIT, total,
				      "stream is larger than the spool limit of %llu bytes",
				      (unsigned long long)limit);
			break;
		}
		if (write_all(tmp->fd, buf, (size_t)got, total) != 0) {
			etl__diag_set(d, st = ETL_E_IO, total, "cannot write the spool file: %s", strerror(errno));
			break;
		}
		total += (uint64_t)got;
	}
	etl__free(buf);
	if (st == ETL_OK)
		etl__source_open_window(s, tmp, 0, total);
	etl__tempfile_release(tmp); /* the window holds its own reference */
	return st;
}

int etl__tempfile_write(struct etl_tempfile *t, const uint8_t *p, size_t n, uint64_t off, struct etl_diag *d)
{
	if (write_all(t->fd, p, n, off) != 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "cannot write a temporary file: %s", strerror(errno));
		return ETL_E_IO;
	}
	return ETL_OK;
}

void etl__source_open_memory(struct etl_source *s, const void *data, size_t size)
{
	s->mem = data;
	s->size = size;
}

int etl__source_read(const struct etl_source *s, uint64_t off, void *dst, size_t n,
		     struct etl_diag *d)
{
	uint8_t *o = dst;

	if (off > s->size || n > s->size - off) {
		etl__diag_set(d, ETL_E_TRUNCATED, off, "read of %zu bytes runs past the end of the file (size %llu)",
			      n, (unsigned long long)s->size);
		return ETL_E_TRUNCATED;
	}
	if (s->mem) {
		memcpy(dst, s->mem + off, n);
		return ETL_OK;
	}
	while (n > 0) {
		ssize_t got = pread(s->fd, o, n, (off_t)(s->base + off));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			etl__diag_set(d, ETL_E_IO, off, "read failed: %s", strerror(errno));
			return ETL_E_IO;
		}
		if (got == 0) {
			etl__diag_set(d, ETL_E_TRUNCATED, off, "file ended early (it shrank while being read?)");
			return ETL_E_TRUNCATED;
		}
		o += got;
		off += (uint64_t)got;
		n -= (size_t)got;
	}
	return ETL_OK;
}

const uint8_t *etl__source_view(const struct etl_source *s, uint64_t off, size_t n,
				uint8_t *scratch, struct etl_diag *d)
{
	if (s->mem) {
		if (off > s->size || n > s->size - off) {
			etl__diag_set(d, ETL_E_TRUNCATED, off, "view of %zu bytes runs past the end of the data",
				      n);
			return NULL;
		}
		return s->mem + off;
	}
	if (etl__source_read(s, off, scratch, n, d) != ETL_OK)
		return NULL;
	return scratch;
}

void etl__source_close(struct etl_source *s)
{
	if (s->map)
		munmap(s->map, s->map_len);
	if (s->temp)
		etl__tempfile_release(s->temp);
	else if (s->close_fd && s->fd >= 0)
		close(s->fd);
	etl__source_init(s);
}

int etl__read_file(const char *path, unsigned long max, const char *what, uint8_t **out, size_t *len,
		   struct etl_diag *d)
{
	struct stat sb;
	uint8_t *buf;
	size_t got = 0;
	int fd;

	*out = NULL;
	*len = 0;
	/* not blocking: a FIFO in the file's place is refused below, not waited on */
	do {
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "%s %s: cannot open: %s", what, path, strerror(errno));
		return ETL_E_IO;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		etl__diag_set(d, ETL_E_IO, ETL_OFFSET_NONE, "%s %s: cannot size it: not a regular file", what, path);
		return ETL_E_IO;
	}
	if ((unsigned long long)sb.st_size > max) {
		close(fd);
		etl__diag_set(d, ETL_E_LIMIT, ETL_OFFSET_NONE, "%s %s: %llu bytes exceed the %lu-byte limit", what, path,
			      (unsigned long long)sb.st_size, max);
		return ETL_E_LIMIT;
	}
	buf = etl__malloc((size_t)sb.st_size + 1);
	while (buf && got < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!buf || got != (size_t)sb.st_size) {
		etl__free(buf);
		etl__diag_set(d, buf ? ETL_E_IO : ETL_E_NOMEM, ETL_OFFSET_NONE, "%s %s: cannot read it", what, path);
		return buf ? ETL_E_IO : ETL_E_NOMEM;
	}
	*out = buf;
	*len = got;
	return ETL_OK;
}

/* SPDX-License-Identifier: MIT */
/*
 * procmaps - /proc/self/maps read with system calls alone, async-signal-safe: a stack
 * trace may be taken in a signal handler, which may have interrupted malloc or stdio.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "procmaps.h"

/* A hexadecimal number at *p, up to a character that is not one; false if none. */
static bool hex_at(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	for (; s < end; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0)
			break;
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (s == *p)
		return false;
	*p = s;
	*out = v;
	return true;
}

static const char *skip_field(const char *p, const char *end)
{
	while (p < end && *p != ' ')
		p++;
	while (p < end && *p == ' ')
		p++;
	return p;
}

bool tp_maps_parse_line(const char *line, size_t len, struct tp_map *m)
{
	const char *p = line, *end = line + len;
	uint64_t lo, hi, off;
	size_t n;

	if (!hex_at(&p, end, &lo) || p == end || *p++ != '-' || !hex_at(&p, end, &hi) ||
	    p == end || *p++ != ' ' || end - p < 5 || hi < lo)
		return false;
	m->readable = p[0] == 'r';
	m->executable = p[2] == 'x';
	p = skip_field(p, end); /* perms */
	if (!hex_at(&p, end, &off))
		return false;
	p = skip_field(p, end); /* offset */
	p = skip_field(p, end); /* dev */
	p = skip_field(p, end); /* inode, then the spaces before the path */
	n = (size_t)(end - p);
	if (n >= sizeof(m->path))
		n = 0; /* a path cut would name another file: none */
	memcpy(m->path, p, n);
	m->path[n] = '\0';
	m->lo = (uintptr_t)lo;
	m->hi = (uintptr_t)hi;
	m->pgoff = off;
	return true;
}

int tp_maps_each(bool (*fn)(void *ctx, const struct tp_map *m), void *ctx)
{
	/* A line is at most ~100 bytes and its path; one longer than buf is skipped. */
	char buf[2048];
	size_t have = 0;
	bool skipping = false;
	struct tp_map m;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		size_t start = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		for (size_t i = 0; i < have; i++) {
			if (buf[i] != '\n')
				continue;
			if (!skipping && tp_maps_parse_line(buf + start, i - start, &m) &&
			    !fn(ctx, &m)) {
				close(fd);
				return 0;
			}
			skipping = false;
			start = i + 1;
		}
		if (start == 0 && have == sizeof(buf)) { /* a line longer than the buffer */
			skipping = true;
			have = 0;
			continue;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
	}
	close(fd);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * How big a pool this machine can give. A pool is shared memory, faulted in when a recording
 * starts: asked for more than there is (TPOINT_BUFFER_SIZE=100G, -b, tpoint_set_buffer_size),
 * the kernel's OOM killer would end the program, or the mapping would fail under RLIMIT_AS
 * and the program run untraced. So the pool is capped to what is there: half the memory
 * available (MemAvailable, or what the cgroup's memory.max leaves, whichever is less) and
 * half the address space RLIMIT_AS leaves. Half, because the program needs memory too, and
 * the pool's queues and the drain's tables take a few percent more.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "poolsize.h"

/* A "Key: N kB" line of a /proc file, in bytes; 0 if absent. */
static unsigned long long proc_kb(const char *path, const char *key)
{
	char buf[4096], *p;
	size_t klen = strlen(key);
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, 10) << 10;
	return 0;
}

/* A file holding one number, or "max": ~0 then, and when unreadable. */
static unsigned long long file_number(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return ~0ull;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || buf[0] < '0' || buf[0] > '9')
		return ~0ull;
	buf[n] = 0;
	return strtoull(buf, NULL, 10);
}

/* What the cgroup (v2) of this process may still take, or ~0 without a limit. */
static unsigned long long cgroup_room(void)
{
	char buf[4096], path[4200];
	unsigned long long max, cur;
	ssize_t n;
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return ~0ull;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 3 || strncmp(buf, "0::", 3))
		return ~0ull;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max", buf + 3);
	max = file_number(path);
	if (max == ~0ull)
		return ~0ull;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current", buf + 3);
	cur = file_number(path);
	return cur == ~0ull ? ~0ull : cur < max ? max - cur : 0;
}

size_t tp_pool_size_fit(size_t want, char *why, size_t whylen)
{
	unsigned long long avail = proc_kb("/proc/meminfo", "MemAvailable");
	unsigned long long cg = cgroup_room(), cap = want;
	const char *limit = NULL;
	struct rlimit as;

	why[0] = 0;
	if (cg < avail || !avail)
		avail = cg;
	if (avail != ~0ull && avail / 2 < cap) {
		cap = avail / 2;
		limit = "half the memory available";
	}
	if (!getrlimit(RLIMIT_AS, &as) && as.rlim_cur != RLIM_INFINITY) {
		unsigned long long used = proc_kb("/proc/self/status", "VmSize");
		unsigned long long room = as.rlim_cur > used ? (as.rlim_cur - used) / 2 : 0;

		if (room < cap) {
			cap = room;
			limit = "half the address space RLIMIT_AS leaves";
		}
	}
	cap &= ~(unsigned long long)(TPOINT_PAGE_SIZE - 1);
	if (!limit)
		return want;
	snprintf(why, whylen, "a pool of %zu MiB is more than this machine can give (%s is "
		 "%llu MiB)", want >> 20, limit, cap >> 20);
	return (size_t)cap;
}

int tp_pool_size_parse(const char *s, size_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	/* strtoull() alone would take blanks, a sign and "0x" */
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	default: break;
	}
	if (shift) {
		end++;
		if (!strcasecmp(end, "B") || !strcasecmp(end, "iB"))
			end += strlen(end);
	}
	if (*end || v > (SIZE_MAX >> shift) || (v << shift) < TP_POOL_MIN_BYTES)
		return -EINVAL;
	*out = (size_t)(v << shift);
	return 0;
}

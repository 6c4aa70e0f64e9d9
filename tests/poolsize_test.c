// SPDX-License-Identifier: MIT
/*
 * poolsize_test - the one size grammar (lib/poolsize.c, tp_pool_size_parse()), which both
 * TPOINT_BUFFER_SIZE and `tpoint record -b` use: each spelling with the bytes it gives, or
 * its refusal. tests/bufsize.sh checks end to end that both ways reach it.
 *
 * Exit 0 when every check passes; each check prints one line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "poolsize.h"

static int checks, failures;

/* want: the bytes, or 0 for a refusal. */
static void size_is(const char *s, size_t want)
{
	size_t got = 0;
	int ret = tp_pool_size_parse(s, &got);
	int ok = want ? ret == 0 && got == want : ret == -EINVAL;

	checks++;
	failures += !ok;
	if (want)
		printf("%s %d - '%s': %zu bytes (returned %d, %zu)\n", ok ? "ok" : "FAIL", checks,
		       s, want, ret, got);
	else
		printf("%s %d - '%s': refused (returned %d)\n", ok ? "ok" : "FAIL", checks, s, ret);
}

int main(void)
{
	static const char *const one_m[] = { "1048576", "1024K", "1024k", "1M", "1m", "1MB",
					     "1MiB", "1mib", "1mB", "1MIB" };
	static const char *const refused[] = { "63K", "65535", "8", "", " 8M", "8M ", "+8M",
					       "-8M", "8Mi", "8MX", "8B", "M", "0x10M", "1.5M",
					       "99999999999999999999", "99999999999999999G",
					       "8M\n", "8 M", "0" };

	for (size_t i = 0; i < sizeof(one_m) / sizeof(one_m[0]); i++)
		size_is(one_m[i], 1 << 20);
	size_is("2048KiB", 2 << 20);
	size_is("2M", 2 << 20);
	size_is("64K", 64 << 10);
	size_is("65536", 64 << 10);
	size_is("1G", (size_t)1 << 30);
	size_is("3gib", (size_t)3 << 30);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		size_is(refused[i], 0);
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}

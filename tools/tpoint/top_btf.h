/* SPDX-License-Identifier: MIT */
/*
 * The values of the kernel's enum constants, from its BTF (/sys/kernel/btf/vmlinux): where an
 * event's format file prints a flag by its name only (the kernel lacks the TRACE_DEFINE_ENUM
 * that would have put the number there), this is where the number is.
 */
#ifndef TPOINT_TOP_BTF_H
#define TPOINT_TOP_BTF_H

#include <stddef.h>

/*
 * For each of names[0..n), its value into values[i] and found[i] = 1 when the kernel's BTF has
 * an enum constant of that name. Returns 0, or -1 with the reason in why (no BTF, malformed).
 */
int btf_enum_values(const char *btf_file, const char *const *names, long long *values,
		    int *found, int n, char *why, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * ustack_names - the names of user addresses (user stacks, .sym histogram keys): a
 * process's mappings (start, end, file offset, path, as tpoint:user_stack_map recorded them,
 * or as its own /proc/self/maps says) and the symbols of those files as they are on disk now (.symtab, else .dynsym; 64-bit ELF of this machine's byte order).
 * Pure but for reading the files named, which are untrusted: regular files only, nothing
 * under /proc, /sys or /dev, every table checked against the file's size.
 *
 *	stack_c+0x13 [ustacktarget]	a function of that file, the offset into it
 *	[libc.so.6+0x271ca]		in that file (the offset in the file), in no symbol
 *	0x1000				in no mapping recorded
 */
#ifndef TPOINT_USTACK_NAMES_H
#define TPOINT_USTACK_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct ustack_names;

struct ustack_names *tp_ustack_names_new(void);
void tp_ustack_names_free(struct ustack_names *s);
/* A mapping of process tgid; one already known is not added again. 0, or -1 out of memory. */
int tp_ustack_names_add_map(struct ustack_names *s, uint32_t tgid, uint64_t start, uint64_t end,
			 uint64_t pgoff, const char *path);
/* What names an address: its file, and the function symbol it is in. */
struct ustack_symbol {
	const char *file, *path;  /* the file's base name and path, as the mapping named it */
	uint64_t file_offset;     /* of the address in the file */
	const char *name;         /* the function; NULL when it is in none */
	uint64_t offset, size;    /* into the function, and the function's size (0: unknown) */
};

/*
 * The address of process tgid in out: 2 in a function, 1 in a file's mapping but no
 * function, 0 in no mapping added (out untouched). The strings live as long as s.
 */
int tp_ustack_names_symbol(struct ustack_names *s, uint32_t tgid, uint64_t addr,
			   struct ustack_symbol *out);
/* The name of addr in process tgid into buf: the last mapping added that holds it names it. */
void tp_ustack_names_name(struct ustack_names *s, uint32_t tgid, uint64_t addr, char *buf,
		       size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * codec.c: zstd and zlib for trace.dat version 7's compressed sections, loaded with dlopen()
 * when a file asks for them. The runtime library links only libc: a program that never
 * writes a compressed file never loads either, and a machine without libzstd.so.1 (Debian
 * installs it with dpkg, zlib with the base system) gets an error naming the library.
 */
#ifndef TPOINT_CODEC_H
#define TPOINT_CODEC_H

#include <stddef.h>
#include <sys/types.h>
#include "hidden.h"

/* The names trace.dat v7 carries in its header (trace-cmd's). */
#define TP_CODEC_ZSTD "zstd"
#define TP_CODEC_ZLIB "zlib"
#define TP_CODEC_DEFAULT TP_CODEC_ZSTD

struct tp_codec {
	const char *name;     /* TP_CODEC_ZSTD or TP_CODEC_ZLIB */
	char version[32];     /* the loaded library's, for the file's header */
	int level;            /* the library's default when 0 */
	void *lib;            /* dlopen() handle */
	size_t (*bound)(const struct tp_codec *c, size_t n);
	ssize_t (*compress)(const struct tp_codec *c, void *dst, size_t cap, const void *src,
			    size_t n);
	ssize_t (*decompress)(const struct tp_codec *c, void *dst, size_t cap, const void *src,
			      size_t n);
	void *fn[4];          /* the library's entry points */
};

/*
 * Load codec `name` ("zstd" or "zlib"; NULL or "" for the default) at `level` (0: the
 * library's default). 0, or -errno with a line in err: an unknown name (-EINVAL), or a
 * library that cannot be loaded (-ENOENT).
 */
HIDDEN int tp_codec_open(struct tp_codec *c, const char *name, int level, char *err,
			 size_t errlen);
HIDDEN void tp_codec_close(struct tp_codec *c);

/* The most bytes compressing n bytes can give. */
static inline size_t tp_codec_bound(const struct tp_codec *c, size_t n)
{
	return c->bound(c, n);
}

/* dst gets src compressed (at most cap bytes): its size, or -1. */
static inline ssize_t tp_codec_compress(const struct tp_codec *c, void *dst, size_t cap,
					const void *src, size_t n)
{
	return c->compress(c, dst, cap, src, n);
}

/* dst gets src decompressed (at most cap bytes): its size, or -1 (corrupt, or too big). */
static inline ssize_t tp_codec_decompress(const struct tp_codec *c, void *dst, size_t cap,
					  const void *src, size_t n)
{
	return c->decompress(c, dst, cap, src, n);
}

/*
 * "zstd", "zlib", "zstd:19", "zlib:9": the name and level of a --compress= or TPOINT_COMPRESS
 * value. 0, or -EINVAL with a line in err naming the value and what is expected.
 */
HIDDEN int tp_codec_parse(const char *spec, const char **name, int *level, char *err,
			  size_t errlen);

#endif

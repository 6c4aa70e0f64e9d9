// SPDX-License-Identifier: MIT
/*
 * zstd and zlib through dlopen(): see codec.h. The prototypes are the libraries' stable ABI
 * (zstd's since 1.0, zlib's since 1.2), declared here as function pointer types so that
 * building tpoint needs neither library's headers.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codec.h"

typedef size_t (*zstd_bound_fn)(size_t n);
typedef size_t (*zstd_compress_fn)(void *dst, size_t cap, const void *src, size_t n, int level);
typedef size_t (*zstd_decompress_fn)(void *dst, size_t cap, const void *src, size_t n);
typedef unsigned (*zstd_is_error_fn)(size_t code);
typedef const char *(*zstd_version_fn)(void);

typedef unsigned long (*zlib_bound_fn)(unsigned long n);
typedef int (*zlib_compress_fn)(unsigned char *dst, unsigned long *dlen, const unsigned char *src,
				unsigned long n, int level);
typedef int (*zlib_uncompress_fn)(unsigned char *dst, unsigned long *dlen,
				  const unsigned char *src, unsigned long n);
typedef const char *(*zlib_version_fn)(void);

enum { FN_BOUND, FN_COMPRESS, FN_DECOMPRESS, FN_IS_ERROR };

/* A pointer to function from dlsym()'s void *: the cast POSIX guarantees, spelled for -pedantic. */
#define FN(c, i, type) (*(type *)&(c)->fn[i])

static size_t zstd_bound(const struct tp_codec *c, size_t n)
{
	return FN(c, FN_BOUND, zstd_bound_fn)(n);
}

static ssize_t zstd_compress(const struct tp_codec *c, void *dst, size_t cap, const void *src,
			     size_t n)
{
	size_t r = FN(c, FN_COMPRESS, zstd_compress_fn)(dst, cap, src, n, c->level);

	return FN(c, FN_IS_ERROR, zstd_is_error_fn)(r) ? -1 : (ssize_t)r;
}

static ssize_t zstd_decompress(const struct tp_codec *c, void *dst, size_t cap, const void *src,
			       size_t n)
{
	size_t r = FN(c, FN_DECOMPRESS, zstd_decompress_fn)(dst, cap, src, n);

	return FN(c, FN_IS_ERROR, zstd_is_error_fn)(r) ? -1 : (ssize_t)r;
}

static size_t zlib_bound(const struct tp_codec *c, size_t n)
{
	return FN(c, FN_BOUND, zlib_bound_fn)(n);
}

/* zlib's own default, Z_DEFAULT_COMPRESSION. */
#define ZLIB_DEFAULT_LEVEL (-1)

static ssize_t zlib_compress(const struct tp_codec *c, void *dst, size_t cap, const void *src,
			     size_t n)
{
	unsigned long len = cap;

	if (FN(c, FN_COMPRESS, zlib_compress_fn)(dst, &len, src, n,
						 c->level ? c->level : ZLIB_DEFAULT_LEVEL) != 0)
		return -1;
	return (ssize_t)len;
}

static ssize_t zlib_decompress(const struct tp_codec *c, void *dst, size_t cap, const void *src,
			       size_t n)
{
	unsigned long len = cap;

	if (FN(c, FN_DECOMPRESS, zlib_uncompress_fn)(dst, &len, src, n) != 0)
		return -1;
	return (ssize_t)len;
}

struct codec_lib {
	const char *name, *soname;
	const char *sym[4]; /* FN_BOUND .. FN_IS_ERROR */
	const char *version_sym;
	int min_level, max_level;
	size_t (*bound)(const struct tp_codec *c, size_t n);
	ssize_t (*compress)(const struct tp_codec *c, void *dst, size_t cap, const void *src,
			    size_t n);
	ssize_t (*decompress)(const struct tp_codec *c, void *dst, size_t cap, const void *src,
			      size_t n);
};

static const struct codec_lib codec_libs[] = {
	{ TP_CODEC_ZSTD, "libzstd.so.1",
	  { "ZSTD_compressBound", "ZSTD_compress", "ZSTD_decompress", "ZSTD_isError" },
	  "ZSTD_versionString", 1, 22, zstd_bound, zstd_compress, zstd_decompress },
	{ TP_CODEC_ZLIB, "libz.so.1", { "compressBound", "compress2", "uncompress", NULL },
	  "zlibVersion", 1, 9, zlib_bound, zlib_compress, zlib_decompress },
};

static const struct codec_lib *codec_lib(const char *name)
{
	for (size_t i = 0; i < sizeof(codec_libs) / sizeof(codec_libs[0]); i++)
		if (!strcmp(codec_libs[i].name, name))
			return &codec_libs[i];
	return NULL;
}

int tp_codec_parse(const char *spec, const char **name, int *level, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	const struct codec_lib *lib = NULL;

	for (size_t i = 0; i < sizeof(codec_libs) / sizeof(codec_libs[0]); i++)
		if (strlen(codec_libs[i].name) == len && !strncmp(codec_libs[i].name, spec, len))
			lib = &codec_libs[i];
	if (!len)
		lib = codec_lib(TP_CODEC_DEFAULT);
	if (!lib) {
		snprintf(err, errlen, "compression '%.*s': expected zstd or zlib, with an optional "
			 ":LEVEL (zstd:19, zlib:9)", (int)len, spec);
		return -EINVAL;
	}
	*name = lib->name;
	*level = 0;
	if (colon) {
		char *end;
		long v = strtol(colon + 1, &end, 10);

		if (!colon[1] || *end || v < lib->min_level || v > lib->max_level) {
			snprintf(err, errlen, "compression level '%s': %s takes %d to %d",
				 colon + 1, lib->name, lib->min_level, lib->max_level);
			return -EINVAL;
		}
		*level = (int)v;
	}
	return 0;
}

int tp_codec_open(struct tp_codec *c, const char *name, int level, char *err, size_t errlen)
{
	const struct codec_lib *lib = codec_lib(name && *name ? name : TP_CODEC_DEFAULT);
	const char *(*version)(void);

	memset(c, 0, sizeof(*c));
	if (!lib) {
		snprintf(err, errlen, "compression '%s': expected zstd or zlib", name);
		return -EINVAL;
	}
	c->lib = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!c->lib) {
		snprintf(err, errlen, "%s compression needs %s: %s", lib->name, lib->soname,
			 dlerror());
		return -ENOENT;
	}
	for (int i = 0; i < 4; i++) {
		if (!lib->sym[i])
			continue;
		c->fn[i] = dlsym(c->lib, lib->sym[i]);
		if (!c->fn[i]) {
			snprintf(err, errlen, "%s: no %s", lib->soname, lib->sym[i]);
			tp_codec_close(c);
			return -ENOENT;
		}
	}
	*(void **)&version = dlsym(c->lib, lib->version_sym);
	snprintf(c->version, sizeof(c->version), "%s", version ? version() : "");
	c->name = lib->name;
	c->level = level;
	c->bound = lib->bound;
	c->compress = lib->compress;
	c->decompress = lib->decompress;
	return 0;
}

void tp_codec_close(struct tp_codec *c)
{
	if (c->lib)
		dlclose(c->lib);
	memset(c, 0, sizeof(*c));
}

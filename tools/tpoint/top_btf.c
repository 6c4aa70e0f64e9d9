/* SPDX-License-Identifier: MIT */
/* Enum constants out of a BTF blob: its types walked once, only enums looked into. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "top_btf.h"

#define BTF_MAGIC 0xeb9f

struct btf_header {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

enum {
	KIND_INT = 1, KIND_PTR, KIND_ARRAY, KIND_STRUCT, KIND_UNION, KIND_ENUM, KIND_FWD,
	KIND_TYPEDEF, KIND_VOLATILE, KIND_CONST, KIND_RESTRICT, KIND_FUNC, KIND_FUNC_PROTO,
	KIND_VAR, KIND_DATASEC, KIND_FLOAT, KIND_DECL_TAG, KIND_TYPE_TAG, KIND_ENUM64,
};

/* The bytes that follow a type's 12-byte head, by kind; -1 for a kind this does not know. */
static long type_extra(unsigned kind, unsigned vlen)
{
	switch (kind) {
	case KIND_INT: case KIND_VAR: case KIND_DECL_TAG:
		return 4;
	case KIND_ARRAY:
		return 12;
	case KIND_STRUCT: case KIND_UNION: case KIND_DATASEC: case KIND_ENUM64:
		return 12L * vlen;
	case KIND_ENUM: case KIND_FUNC_PROTO:
		return 8L * vlen;
	case KIND_PTR: case KIND_FWD: case KIND_TYPEDEF: case KIND_VOLATILE: case KIND_CONST:
	case KIND_RESTRICT: case KIND_FUNC: case KIND_FLOAT: case KIND_TYPE_TAG:
		return 0;
	}
	return -1;
}

static char *read_all(const char *file, size_t *size)
{
	size_t cap = 1 << 22, len = 0;
	char *buf = malloc(cap), *grown;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !buf)
		goto fail;
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			if (cap >= (1u << 30) || !(grown = realloc(buf, cap *= 2)))
				goto fail;
			buf = grown;
		}
	}
	if (n < 0)
		goto fail;
	close(fd);
	*size = len;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

int btf_enum_values(const char *btf_file, const char *const *names, long long *values,
		    int *found, int n, char *why, size_t len)
{
	struct btf_header h;
	size_t size;
	char *blob = read_all(btf_file, &size);

	for (int i = 0; i < n; i++)
		found[i] = 0;
	if (!blob) {
		snprintf(why, len, "cannot read %s: %s", btf_file, strerror(errno));
		return -1;
	}
	memcpy(&h, blob, size < sizeof(h) ? 0 : sizeof(h));
	if (size < sizeof(h) || h.magic != BTF_MAGIC || h.hdr_len > size ||
	    (size_t)h.type_off + h.type_len > size - h.hdr_len ||
	    (size_t)h.str_off + h.str_len > size - h.hdr_len) {
		snprintf(why, len, "%s is not BTF in this machine's byte order", btf_file);
		free(blob);
		return -1;
	}
	const char *types = blob + h.hdr_len + h.type_off, *strs = blob + h.hdr_len + h.str_off;
	size_t pos = 0;

	while (pos + 12 <= h.type_len) {
		uint32_t head[3];

		memcpy(head, types + pos, sizeof(head));
		unsigned kind = (head[1] >> 24) & 0x1f, vlen = head[1] & 0xffff;
		long extra = type_extra(kind, vlen);

		if (extra < 0 || pos + 12 + (size_t)extra > h.type_len) {
			snprintf(why, len, "%s: a type of kind %u this tool cannot walk", btf_file,
				 kind);
			free(blob);
			return -1;
		}
		for (unsigned v = 0; (kind == KIND_ENUM || kind == KIND_ENUM64) && v < vlen; v++) {
			size_t each = kind == KIND_ENUM ? 8 : 12;
			uint32_t e[3];
			long long value;

			memcpy(e, types + pos + 12 + v * each, each);
			if (e[0] >= h.str_len)
				continue;
			value = kind == KIND_ENUM ? (long long)(int32_t)e[1]
						  : (long long)((uint64_t)e[2] << 32 | e[1]);
			for (int i = 0; i < n; i++)
				if (!found[i] && !strncmp(strs + e[0], names[i], h.str_len - e[0]) &&
				    strlen(names[i]) < h.str_len - e[0]) {
					values[i] = value;
					found[i] = 1;
				}
		}
		pos += 12 + (size_t)extra;
	}
	free(blob);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * One printf conversion of a print fmt, read as the kernel and libtraceevent read them:
 * flags, a width and a precision (digits or '*', each '*' taking an argument), length
 * modifiers, the conversion character. Shared by the format check and the %*pb rewrite
 * (format.c), the renderer's rewrite (tools/tpoint/kprint.c) and the converters' display
 * bases (tools/tpoint/convert_input.c).
 */
#ifndef TPOINT_PRINTF_CONV_H
#define TPOINT_PRINTF_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct tp_printf_conv {
	size_t spec;	 /* offset of the conversion character from the '%' */
	unsigned stars;	 /* arguments taken by a '*' width or precision */
	bool star_width; /* the width is '*' */
	char c;		 /* the conversion character: '%' for "%%", 0 where the text ends */
};

static inline bool tp_printf_conv_in(const char *s, const char *end, size_t i, const char *set)
{
	return s + i < end && s[i] && strchr(set, s[i]);
}

/* The conversion at s ('%'), in the text that ends at end (or at a NUL before it). */
static inline struct tp_printf_conv tp_printf_conv_parse(const char *s, const char *end)
{
	struct tp_printf_conv c = { 0 };
	size_t i = 1;

	if (tp_printf_conv_in(s, end, 1, "%")) {
		c.spec = 1;
		c.c = '%';
		return c;
	}
	while (tp_printf_conv_in(s, end, i, "-+ #0'"))
		i++;
	if (tp_printf_conv_in(s, end, i, "*")) {
		c.star_width = true;
		c.stars++;
		i++;
	}
	while (tp_printf_conv_in(s, end, i, "0123456789"))
		i++;
	if (tp_printf_conv_in(s, end, i, ".")) {
		i++;
		if (tp_printf_conv_in(s, end, i, "*")) {
			c.stars++;
			i++;
		}
		while (tp_printf_conv_in(s, end, i, "0123456789"))
			i++;
	}
	while (tp_printf_conv_in(s, end, i, "hlLqjzZt"))
		i++;
	c.spec = i;
	c.c = s + i < end ? s[i] : 0;
	return c;
}

#endif

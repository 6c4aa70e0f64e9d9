/* SPDX-License-Identifier: MIT */
/*
 * tpoint/meta.h - the description of events that the compiler leaves in every object.
 *
 * Each event class, event and TRACE_DEFINE_ENUM becomes one record in the ELF section
 * "tpoint_meta". The records hold no pointers (only numbers and NUL-terminated strings), so
 * that `tpoint list FILE` can read the events of an executable or a shared library straight
 * from the file, without running it and without applying relocations; the runtime reads the
 * same records, so the two can never disagree.
 *
 * A record starts with struct tpoint_meta_hdr and is a multiple of 8 bytes long; the linker
 * may put zero bytes between records, so a reader skips zero words until the next magic.
 * The numbers come first, then the strings, each as long as it is (version 2; version 1 gave
 * every name a fixed 64-byte array, 864 bytes a TRACE_EVENT with 3 fields instead of 168).
 * Layout changes bump TPOINT_META_VERSION.
 */
#ifndef TPOINT_META_H
#define TPOINT_META_H

#include <stdint.h>

#define TPOINT_META_SECTION "tpoint_meta"
#define TPOINT_META_MAGIC 0x6174656d7074ULL /* "tpmeta" */
#define TPOINT_META_VERSION 2

/* system, event, class, field and type names, with the NUL: longer ones do not compile. */
#define TPOINT_NAME_MAX 64

/*
 * Event ids (common_type) start here: above the kernel's own (about 1..2400 today), so that
 * one trace.dat can hold both, and below 32768, because KernelShark keeps ids in an int16_t
 * and shows events with larger ids without their name or text. 4096 ids fit below it.
 */
#define TPOINT_FIRST_ID 0x7000u

enum tpoint_meta_kind {
	TPOINT_META_CLASS = 1, /* the record layout and print format of an event class */
	TPOINT_META_EVENT = 2, /* one event: its class, condition and print override */
	TPOINT_META_ENUM = 3,  /* TRACE_DEFINE_ENUM(name): a symbol replaced by its value */
};

enum tpoint_field_kind {
	TPOINT_FIELD_PLAIN = 0,   /* __field, __field_struct: "type name" */
	TPOINT_FIELD_ARRAY = 1,   /* __array: "type name[len]" */
	TPOINT_FIELD_DYNAMIC = 2, /* __dynamic_array, __string, __bitmask, ...:
				   * "__data_loc type[] name" */
	TPOINT_FIELD_REL_DYNAMIC = 3, /* __rel_dynamic_array, __rel_string, ...:
				       * "__rel_loc type[] name" */
	TPOINT_FIELD_CPUMASK = 4,     /* __cpumask: "__data_loc cpumask_t name" */
	TPOINT_FIELD_REL_CPUMASK = 5, /* __rel_cpumask: "__rel_loc cpumask_t name" */
};
#define TPOINT_FIELD_KIND_MAX TPOINT_FIELD_REL_CPUMASK

struct tpoint_meta_hdr {
	/* aligned(8): records are 8-byte multiples on i386 too, where u64 is 4-aligned. */
	uint64_t magic __attribute__((aligned(8))); /* TPOINT_META_MAGIC */
	uint16_t kind;    /* enum tpoint_meta_kind */
	uint16_t version; /* TPOINT_META_VERSION */
	uint32_t size;    /* bytes in the whole record, header included */
};

/*
 * Fields carry no offset: as in the kernel, a reader lays them out with C's rules (each at
 * the next multiple of its alignment, starting after the 8-byte common header), which the
 * compiler used for the record; tpoint_meta_class.payload_size cross-checks the result.
 * Their type and name are among the class's strings.
 */
struct tpoint_meta_field {
	uint16_t align;     /* alignment of the member in the record */
	uint16_t size;      /* in the fixed part: 4 for dynamic fields */
	uint8_t is_signed;  /* of the element type */
	uint8_t kind;       /* enum tpoint_field_kind */
	uint16_t reserved;
	uint32_t array_len; /* elements, for TPOINT_FIELD_ARRAY */
};

/*
 * Followed by nfields struct tpoint_meta_field, then NUL-terminated strings: the system, the
 * class name, each field's type and name (in the fields' order), the print format text.
 */
struct tpoint_meta_class {
	struct tpoint_meta_hdr hdr;
	uint32_t nfields;
	uint32_t payload_size; /* sizeof the fixed part of the record */
};

/*
 * Followed by NUL-terminated strings: the system, the event name, its class's name, the
 * condition's source text ("" for an unconditional event), the print format override (""
 * when the class's print format is used).
 */
struct tpoint_meta_event {
	struct tpoint_meta_hdr hdr;
};

/* Followed by NUL-terminated strings: the system, the name. */
struct tpoint_meta_enum {
	struct tpoint_meta_hdr hdr;
	int64_t value;
};

#endif /* TPOINT_META_H */

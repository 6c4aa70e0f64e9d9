/* SPDX-License-Identifier: MIT */
/*
 * Stage 0: forget what the previous stage defined, so that the next one starts from nothing.
 * Included before every stage and once at the end. Deliberately without include guard.
 */
#undef TRACE_EVENT
#undef TRACE_EVENT_CONDITION
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_CONDITION
#undef DEFINE_EVENT_PRINT
#undef TRACE_DEFINE_ENUM
#undef TRACE_DEFINE_SIZEOF
#undef TP_STRUCT__entry
#undef TP_fast_assign
#undef TP_printk
#undef TP_CONDITION
#undef __field
#undef __field_ext
#undef __field_struct
#undef __array
#undef __dynamic_array
#undef __string
#undef __entry
#undef __assign_str
#undef __get_str
#undef __get_dynamic_array
#undef __get_dynamic_array_len
#undef __print_flags
#undef __print_symbolic
#undef __print_hex
#undef __print_hex_str
#undef __print_array

#define TP_CONDITION(...) __VA_ARGS__

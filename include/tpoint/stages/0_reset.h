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
#undef DEFINE_EVENT_FN
#undef TRACE_EVENT_FN
#undef TRACE_EVENT_FN_COND
#undef TRACE_DEFINE_ENUM
#undef TRACE_DEFINE_SIZEOF
#undef TP_STRUCT__entry
#undef TP_fast_assign
#undef TP_printk
#undef TP_CONDITION
#undef __field
#undef __field_ext
#undef __field_struct
#undef __field_struct_ext
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __vstring
#undef __bitmask
#undef __cpumask
#undef __sockaddr
#undef __rel_dynamic_array
#undef __rel_string
#undef __rel_string_len
#undef __rel_bitmask
#undef __rel_cpumask
#undef __rel_sockaddr
#undef __entry
#undef __assign_str
#undef __assign_str_len
#undef __assign_vstr
#undef __assign_bitmask
#undef __assign_cpumask
#undef __assign_sockaddr
#undef __assign_rel_str
#undef __assign_rel_str_len
#undef __assign_rel_bitmask
#undef __assign_rel_cpumask
#undef __assign_rel_sockaddr
#undef __get_str
#undef __get_dynamic_array
#undef __get_dynamic_array_len
#undef __get_rel_dynamic_array
#undef __get_rel_dynamic_array_len
#undef __get_rel_str
#undef __get_bitmask
#undef __get_cpumask
#undef __get_rel_bitmask
#undef __get_rel_cpumask
#undef __get_sockaddr
#undef __get_rel_sockaddr
#undef __print_flags
#undef __print_symbolic
#undef __print_hex
#undef __print_hex_str
#undef __print_array
#undef __print_dynamic_array
#undef __print_flags_u64
#undef __print_symbolic_u64
#undef __print_hex_dump
#undef __print_ns_to_secs
#undef __print_ns_without_secs

#define TP_CONDITION(...) __VA_ARGS__

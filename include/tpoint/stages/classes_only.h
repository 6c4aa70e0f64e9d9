/* SPDX-License-Identifier: MIT */
/*
 * For the stages that emit something per event class and nothing per event: every event
 * macro becomes its class, and the rest becomes nothing. The stage defines
 * DECLARE_EVENT_CLASS itself. Deliberately without include guard: read once per stage.
 */
#define DEFINE_EVENT(template, name, proto, args) TPOINT_DECL_END
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond) TPOINT_DECL_END
#define DEFINE_EVENT_PRINT(template, name, proto, args, print) TPOINT_DECL_END
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)                               \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			    PARAMS(print))
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)               \
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign),       \
		    PARAMS(print))
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg) TPOINT_DECL_END
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg)                 \
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign),       \
		    PARAMS(print))
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign, print, reg, unreg)      \
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign),       \
		    PARAMS(print))
#define TRACE_DEFINE_ENUM(a) TPOINT_DECL_END
#define TRACE_DEFINE_SIZEOF(a) TPOINT_DECL_END

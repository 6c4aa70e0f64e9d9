/* SPDX-License-Identifier: MIT */
/* lib/synth_record.c: a hit's synthetic records written after its own (synth_pending.h). */
#ifndef TPOINT_SYNTH_RECORD_H
#define TPOINT_SYNTH_RECORD_H

#include "hidden.h"

/*
 * On the hitting thread, its level let go (the writer's after_commit()): each queued record
 * of a synthetic event that records now is reserved, filled and published as a call site's
 * would be (its filter, its own triggers, the counters); the queue emptied.
 */
HIDDEN void tp_synth_record_flush(void);

#endif

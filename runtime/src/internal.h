/*
 * internal.h - every private header of the runtime, for the unit tests
 * that reach into several subsystems.  The runtime's own files include
 * only the headers of the layers they use:
 *
 *   drivers       replay.h (replay.c, replay_format.c), kafka.h and
 *                 kafka_impl.h (kafka_*.c), config_impl.h (config*.c),
 *                 main.c on top
 *   state         state.h (state.c) over rocks.h (rocks.c) and store.h
 *                 (store.c)
 *   record path   driver.h: the driver interface (emit.c, errors.c,
 *                 driver.c), which state.c writes changelogs through
 *   util          util.h (util.c, encoding.c, buf.c, json.c, arena.c)
 *
 * Generated code never includes these: everything it may use is in
 * stoat/runtime.h.
 */
#ifndef STOAT_RUNTIME_INTERNAL_H
#define STOAT_RUNTIME_INTERNAL_H

#include "config_impl.h"
#include "driver.h"
#include "kafka.h"
#include "replay.h"
#include "rocks.h"
#include "state.h"
#include "store.h"
#include "util.h"

#endif /* STOAT_RUNTIME_INTERNAL_H */

/* Extern functions of the extern_record e2e case. */
#ifndef EXT_H
#define EXT_H

#include "app.types.h"

/* The order's line: qty * price, and whether it has a note. */
Line price_line(stoat_ctx *cx, Order o);
/* Whether the order is for at least qty items. */
bool at_least(stoat_ctx *cx, Order o, int64_t qty);

#endif

#include "ext.h"

Line price_line(stoat_ctx *cx, Order o)
{
	(void)cx;
	return (Line){ .id = o.id, .total = (double)o.qty * o.price, .noted = o.note.has && o.note.v.len > 0 };
}

bool at_least(stoat_ctx *cx, Order o, int64_t qty)
{
	(void)cx;
	return o.qty >= qty;
}

/* Declarations for emit_extern.stoat (the golden runner compiles its C). */
#ifndef RISK_H
#define RISK_H
double risk_score(stoat_ctx *cx, Order o);
stoat_str risk_normalise_country(stoat_ctx *cx, stoat_str c);
#endif

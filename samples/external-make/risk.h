/* The risk score of a payment, for payments.stoat. */
#ifndef RISK_H
#define RISK_H

#include <stoat/runtime.h>

/* Points for a payment of RISK_BIG_AMOUNT or more, and from RISK_MID_AMOUNT. */
#define RISK_BIG_AMOUNT 1000.0
#define RISK_BIG_POINTS 30
#define RISK_MID_AMOUNT 100.0
#define RISK_MID_POINTS 10
/* Points for a payment from a country on the watch list (XX, YY). */
#define RISK_COUNTRY_POINTS 40

/* The payment's score, 0 to 70; a per-record error for a negative amount. */
int64_t risk_score(stoat_ctx *cx, double amount, stoat_str country);

#endif

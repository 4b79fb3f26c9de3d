/* The risk score of a payment (see risk.h). */
#include "risk.h"

#include <string.h>

/* True if country is on the watch list. */
static bool watched(stoat_str country)
{
	static const char *const list[] = { "XX", "YY" };
	for (size_t i = 0; i < sizeof list / sizeof *list; i++)
		if (country.len == strlen(list[i]) && memcmp(country.ptr, list[i], country.len) == 0)
			return true;
	return false;
}

/* Amount points plus watch-list points. */
int64_t risk_score(stoat_ctx *cx, double amount, stoat_str country)
{
	if (amount < 0) {
		stoat_error(cx, "negative amount %.2f", amount);
		return 0;
	}
	int64_t score = 0;
	if (amount >= RISK_BIG_AMOUNT)
		score += RISK_BIG_POINTS;
	else if (amount >= RISK_MID_AMOUNT)
		score += RISK_MID_POINTS;
	if (watched(country))
		score += RISK_COUNTRY_POINTS;
	return score;
}

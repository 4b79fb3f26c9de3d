/*
 * rng_draws.c - prints draws of the Nexmark generator's SplittableRandom
 * (bench/nexmark/generator.c, included whole for its static functions),
 * one per line, in the order RngDraws.java makes them with the JDK's own
 * java.util.SplittableRandom: the test nexmark.rng_matches_java compares
 * the two outputs.
 */
#include "../../bench/nexmark/generator.c"

int main(void)
{
	static const int64_t seeds[] = { 1, 42, -1, INT64_C(1234567890123), 0 };
	static const int32_t bounds[] = { 2, 4, 5, 13, 26, 100, 10000, 1 << 20, 1500000000, INT32_MAX };
	for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
		rng r = { (uint64_t)seeds[s] };
		for (int i = 0; i < 50; i++) {
			printf("int %" PRId32 "\n", next_int(&r));
			for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++)
				printf("below %" PRId32 " %" PRId32 "\n", bounds[b], next_int_below(&r, bounds[b]));
			printf("long %" PRId64 "\n", next_long(&r));
			double d = next_double(&r);
			uint64_t bits;
			memcpy(&bits, &d, sizeof bits);
			printf("double %" PRId64 "\n", (int64_t)bits);
			printf("price %" PRId64 "\n", next_price(&r));
		}
	}
	return 0;
}

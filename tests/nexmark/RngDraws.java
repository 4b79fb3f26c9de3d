// RngDraws.java - the JDK's java.util.SplittableRandom draws that
// tests/nexmark/rng_draws.c prints from the Nexmark generator's own copy
// of the algorithm, in the same order and format (nexmark.rng_matches_java).
// The price line is the reference generator's PriceGenerator rule:
// Math.round(Math.pow(10.0, nextDouble() * 6.0) * 100.0).
import java.util.SplittableRandom;

public class RngDraws {
	public static void main(String[] args) {
		long[] seeds = { 1, 42, -1, 1234567890123L, 0 };
		int[] bounds = { 2, 4, 5, 13, 26, 100, 10000, 1 << 20, 1500000000, Integer.MAX_VALUE };
		StringBuilder out = new StringBuilder();
		for (long seed : seeds) {
			SplittableRandom r = new SplittableRandom(seed);
			for (int i = 0; i < 50; i++) {
				out.append("int ").append(r.nextInt()).append('\n');
				for (int b : bounds)
					out.append("below ").append(b).append(' ').append(r.nextInt(b)).append('\n');
				out.append("long ").append(r.nextLong()).append('\n');
				out.append("double ").append(Double.doubleToRawLongBits(r.nextDouble())).append('\n');
				out.append("price ").append(Math.round(Math.pow(10.0, r.nextDouble() * 6.0) * 100.0)).append('\n');
			}
		}
		System.out.print(out);
	}
}

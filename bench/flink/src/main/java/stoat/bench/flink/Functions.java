package stoat.bench.flink;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.functions.ScalarFunction;

/**
 * The scalar functions the queries call besides Flink's own: the reference suite's count_char
 * (q14), MILLIS (a window bound as epoch milliseconds, the form stoat writes times in) and MARK
 * (the hook that reports the first output record).
 */
public final class Functions {
	private Functions() {
	}

	/*
	 * Set once by MARK. The mini-cluster runs its tasks in this JVM, on classes of the application
	 * class loader (the jar is not shipped as a user jar), so the static is the one Main reads.
	 */
	static final AtomicBoolean FIRST_OUT = new AtomicBoolean();
	static volatile long firstOutMs = -1;

	/** count_char(s, c): how many bytes of s equal c's first byte, as the suite's CountChar UDF. */
	public static final class CountChar extends ScalarFunction {
		/* Counts bytes (the reference counts bytes of the UTF-8 form too). */
		public long eval(@DataTypeHint("STRING") StringData s, @DataTypeHint("STRING") StringData c) {
			if (s == null || c == null)
				return 0;
			byte chr = c.toBytes()[0];
			long n = 0;
			for (byte b : s.toBytes())
				if (b == chr)
					n++;
			return n;
		}
	}

	/**
	 * MILLIS(t): t as milliseconds since the epoch. window_start and window_end are TIMESTAMP(3)
	 * in the session's time zone (UTC here, Main sets it), SESSION_START of a TIMESTAMP_LTZ time
	 * attribute is a TIMESTAMP_LTZ.
	 */
	public static final class Millis extends ScalarFunction {
		/* A TIMESTAMP in UTC. */
		public Long eval(@DataTypeHint("TIMESTAMP(3)") LocalDateTime t) {
			return t == null ? null : t.toInstant(ZoneOffset.UTC).toEpochMilli();
		}

		/* A TIMESTAMP_LTZ: an instant. */
		public Long eval(@DataTypeHint("TIMESTAMP_LTZ(3)") Instant t) {
			return t == null ? null : t.toEpochMilli();
		}
	}

	/* Reports the first output record, once. One volatile read per record after the first. */
	private static void mark() {
		if (firstOutMs < 0 && FIRST_OUT.compareAndSet(false, true)) {
			firstOutMs = System.currentTimeMillis();
			Main.log("first output record after " + Main.sinceStart() + " ms (since the process started)");
		}
	}

	/**
	 * MARK(x): x, unchanged; the first call notes the time. Each query applies it to one output
	 * column in the projection before the sink, so the first call is the first record reaching
	 * the sink: to the key of a stream, to a value column of an updating result (around the key,
	 * a function the planner cannot see through would hide that the key is the result's unique
	 * key, and Flink would add a materializer and an update-before tombstone per change).
	 */
	public static final class Mark extends ScalarFunction {
		/* A STRING column. */
		public String eval(String x) {
			mark();
			return x;
		}

		/* A BIGINT column. */
		public Long eval(Long x) {
			mark();
			return x;
		}
	}
}

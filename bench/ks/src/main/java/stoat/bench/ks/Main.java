package stoat.bench.ks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The Kafka Streams peer of stoat's broker benchmarks: the topologies of
 * bench/kafka/*.stoat (passthrough, filter_map, wordcount, the windowed
 * counts, the joins) written against the Kafka Streams DSL. See bench/ks/README.md.
 */
public final class Main {
	private static final String USAGE = String.join("\n",
			"usage: java -jar stoat-bench-ks.jar passthrough|filter_map|wordcount|windowed_tumbling|",
			"         windowed_hopping|windowed_final|join_stream_table|join_stream_stream",
			"         --bootstrap HOST:PORT --app-id ID --in TOPIC --out TOPIC",
			"         [--in2 TOPIC (the joins' table or right stream)] [--join-grace-ms 10000]",
			"         [--guarantee at_least_once|exactly_once] [--commit-interval-ms 100]",
			"         [--cache-max-bytes 10485760] [--threads 1] [--state-dir DIR]",
			"         [--idle-exit-ms N] [--config PROPERTY=VALUE]... [--print-topology]",
			"       java -jar stoat-bench-ks.jar nexmark q0|q1|...|q23 --bootstrap HOST:PORT --app-id ID",
			"         --topic-prefix P (reads P-person, P-auction, P-bid; q13 P-side too) --out TOPIC",
			"         [the options above but --in, --in2, --join-grace-ms]");

	/* Records taken from the input topic, from the repartition topic (wordcount), written out. */
	static final LongAdder IN = new LongAdder();
	static final LongAdder REPARTITIONED = new LongAdder();
	static final LongAdder OUT = new LongAdder();
	private static final AtomicBoolean FIRST_OUT = new AtomicBoolean();
	private static long processStartMs;
	private static String appId;

	private Main() {
	}

	private static void log(String msg) {
		System.err.println((appId != null ? appId : "stoat-bench-ks") + ": " + msg);
		System.err.flush();
	}

	private static long sinceStart() {
		return System.currentTimeMillis() - processStartMs;
	}

	/* The peek before each sink: counts the output, and reports the first record. */
	static <K, V> void output(K k, V v) {
		OUT.increment();
		if (!FIRST_OUT.get() && FIRST_OUT.compareAndSet(false, true))
			log("first output record after " + sinceStart() + " ms (since the process started)");
	}

	/* The peek after each source: counts the input. */
	static <K, V> void input(K k, V v) {
		IN.increment();
	}

	// ------------------------------------------------------------------ topologies

	/* bench/kafka/passthrough.stoat: bytes in, the same bytes out, keys (null ones too) kept. */
	static Topology passthrough(StreamsBuilder b, String in, String out) {
		b.stream(in, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
				.peek(Main::input)
				.peek(Main::output)
				.to(out, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
		return b.build();
	}

	/* bench/kafka/filter_map.stoat: keep amount >= 100.0, map each Event to a Summary. */
	static Topology filterMap(StreamsBuilder b, String in, String out) {
		b.stream(in, Consumed.with(nonNullString(), JsonSerdes.event()))
				.peek(Main::input)
				.filter((k, e) -> e.amount() >= 100.0)
				.mapValues(Summary::of)
				.peek(Main::output)
				.to(out, Produced.with(Serdes.String(), JsonSerdes.summary()));
		return b.build();
	}

	/*
	 * bench/kafka/wordcount.stoat (samples/wordcount): lines -> lower-case words longer than one
	 * byte -> re-keyed by the word and repartitioned (<app-id>-counts-repartition) -> count() in the
	 * RocksDB store "counts" (changelog <app-id>-counts-changelog, record cache) -> every count as
	 * it leaves the cache, (String, Long) out. groupBy((k, w) -> w) spelt out as selectKey +
	 * repartition + groupByKey (what groupBy compiles to) so that a peek can count the records
	 * read back from the repartition topic, which the idle exit has to wait for.
	 */
	static Topology wordcount(StreamsBuilder b, String in, String out) {
		KStream<byte[], String> lines = b.stream(in, Consumed.with(Serdes.ByteArray(), nonNullString()));
		lines.peek(Main::input)
				.flatMapValues(line -> Text.splitWords(Text.lower(line)))
				.filter((k, w) -> Text.longerThanOneByte(w))
				.selectKey((k, w) -> w)
				.repartition(Repartitioned.<String, String>as("counts")
						.withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
				.peek((k, v) -> REPARTITIONED.increment())
				.groupByKey()
				.count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts")
						.withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
				.toStream()
				.peek(Main::output)
				.to(out, Produced.with(Serdes.String(), Serdes.Long()));
		return b.build();
	}

	/*
	 * bench/kafka/windowed_{tumbling,hopping,final}.stoat: count per key (no repartition: grouped by
	 * the record's own key) in time windows of `size` advancing by `advance`, grace 10 s, event time =
	 * the record timestamp, in the RocksDB window store "counts" (changelog
	 * <app-id>-counts-changelog). Emit changes: every count as it leaves the record cache; emit
	 * final (EmitStrategy.onWindowClose): one count per window once end + grace <= stream time.
	 * Windowed keys are written with Kafka Streams' own TimeWindowedSerializer (key bytes + 8-byte
	 * big-endian window start), counts as LongSerde i64s.
	 */
	static Topology windowed(StreamsBuilder b, String in, String out, Duration size, Duration advance,
			boolean emitFinal) {
		TimeWindows windows = TimeWindows.ofSizeAndGrace(size, Duration.ofSeconds(10)).advanceBy(advance);
		var windowed = b.stream(in, Consumed.with(nonNullString(), Serdes.ByteArray()))
				.peek(Main::input)
				.groupByKey(Grouped.with(Serdes.String(), Serdes.ByteArray()))
				.windowedBy(windows);
		if (emitFinal)
			windowed = windowed.emitStrategy(EmitStrategy.onWindowClose());
		windowed.count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("counts")
						.withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
				.toStream()
				.peek(Main::output)
				.to(out, Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, size.toMillis()),
						Serdes.Long()));
		return b.build();
	}

	/*
	 * bench/kafka/join_stream_table.stoat: the orders of `in` left-joined with the customers table
	 * of `table` (its RocksDB store "customers", changelog <app-id>-customers-changelog, the record
	 * cache in front): every order comes out with its key and value + ":" + the customer's value,
	 * or + ":none" when the table has none for its key. String keys and values (stoat's (text, text)).
	 * The table's records count as input (countedString): bench/run first runs the peer on the table
	 * alone, and its idle exit and "records in" must see them.
	 */
	static Topology joinStreamTable(StreamsBuilder b, String in, String table, String out) {
		KTable<String, String> customers = b.table(table, Consumed.with(nonNullString(), countedString()),
				Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("customers")
						.withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
		b.stream(in, Consumed.with(nonNullString(), nonNullString()))
				.peek(Main::input)
				.leftJoin(customers, (o, c) -> o + ":" + (c == null ? "none" : c),
						Joined.with(Serdes.String(), Serdes.String(), Serdes.String()))
				.peek(Main::output)
				.to(out, Produced.with(Serdes.String(), Serdes.String()));
		return b.build();
	}

	/*
	 * bench/kafka/join_stream_stream.stoat: the impressions of `in` inner-joined with the clicks of
	 * `right` of the same key within 10 s of each other (JoinWindows.ofTimeDifferenceAndGrace(10 s,
	 * grace)), both sides in RocksDB window stores named after "impressions_clicks" (with
	 * changelogs); every pair comes out with the key and impression + ":" + click.
	 */
	static Topology joinStreamStream(StreamsBuilder b, String in, String right, String out, Duration grace) {
		KStream<String, String> clicks = b.stream(right, Consumed.with(nonNullString(), nonNullString()))
				.peek(Main::input);
		b.stream(in, Consumed.with(nonNullString(), nonNullString()))
				.peek(Main::input)
				.join(clicks, (i, c) -> i + ":" + c,
						JoinWindows.ofTimeDifferenceAndGrace(Duration.ofSeconds(10), grace),
						StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String())
								.withStoreName("impressions_clicks"))
				.peek(Main::output)
				.to(out, Produced.with(Serdes.String(), Serdes.String()));
		return b.build();
	}

	/*
	 * Kafka's StringSerde, but null is a deserialization error (which stops the app: Kafka Streams'
	 * default LogAndFailExceptionHandler), as for stoat's `string` (not `string?`) keys and values.
	 */
	static Serde<String> nonNullString() {
		Deserializer<String> d = new StringDeserializer() {
			@Override
			public String deserialize(String topic, byte[] data) {
				if (data == null)
					throw new SerializationException("null where a string is expected (" + topic + ")");
				return super.deserialize(topic, data);
			}
		};
		return Serdes.serdeFrom(new StringSerializer(), d);
	}

	/*
	 * Kafka's StringSerde (null for a tombstone) counting every record it reads as input: a KTable
	 * source has no stream to peek at. It counts a record when the task buffers it, a moment before
	 * it is processed; one still unprocessed at the idle exit's close is not committed, so the next
	 * run reads it again, still before every order (it has an earlier timestamp).
	 */
	static Serde<String> countedString() {
		Deserializer<String> d = new StringDeserializer() {
			@Override
			public String deserialize(String topic, byte[] data) {
				IN.increment();
				return super.deserialize(topic, data);
			}
		};
		return Serdes.serdeFrom(new StringSerializer(), d);
	}

	// ------------------------------------------------------------------ main

	private static void usage(String why) {
		if (why != null)
			System.err.println("stoat-bench-ks: " + why);
		System.err.println(USAGE);
		System.exit(2);
	}

	private static long number(String opt, String v) {
		try {
			return Long.parseLong(v);
		} catch (NumberFormatException e) {
			usage(opt + " wants an integer, not '" + v + "'");
			return 0;
		}
	}

	public static void main(String[] args) throws Exception {
		// The JVM's own start time (ProcessHandle's is only as precise as the kernel's boot time, 1 s).
		processStartMs = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();

		if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help"))
			usage(null);
		String scenario = args[0];
		// nexmark's query: the word after the scenario
		String query = scenario.equals("nexmark") && args.length > 1 ? args[1] : null;
		String bootstrap = null, in = null, in2 = null, out = null, stateDir = null, topicPrefix = null;
		String guarantee = "at_least_once";
		boolean printTopology = false;
		long commitMs = 100, cacheBytes = 10L * 1024 * 1024, threads = 1, idleMs = 0, joinGraceMs = 10000;
		Properties extra = new Properties();
		for (int i = query != null ? 2 : 1; i < args.length; i++) {
			String opt = args[i];
			String val = null;
			int eq = opt.indexOf('=');
			if (opt.startsWith("--") && eq > 0) {
				val = opt.substring(eq + 1);
				opt = opt.substring(0, eq);
			} else if (opt.equals("--print-topology")) {
				val = ""; // a flag: no value
			} else if (i + 1 < args.length) {
				val = args[++i];
			} else {
				usage(opt + " wants a value");
			}
			switch (opt) {
			case "--bootstrap", "--bootstrap-servers", "-b" -> bootstrap = val;
			case "--app-id" -> appId = val;
			case "--in" -> in = val;
			case "--in2" -> in2 = val;
			case "--topic-prefix" -> topicPrefix = val;
			case "--join-grace-ms" -> joinGraceMs = number(opt, val);
			case "--out" -> out = val;
			case "--guarantee" -> guarantee = val;
			case "--commit-interval-ms" -> commitMs = number(opt, val);
			case "--cache-max-bytes" -> cacheBytes = number(opt, val);
			case "--threads" -> threads = number(opt, val);
			case "--state-dir" -> stateDir = val;
			case "--idle-exit-ms" -> idleMs = number(opt, val);
			case "--print-topology" -> printTopology = true;
			case "--config", "-X" -> {
				int e = val.indexOf('=');
				if (e <= 0)
					usage("--config wants PROPERTY=VALUE");
				extra.setProperty(val.substring(0, e), val.substring(e + 1));
			}
			default -> usage("unknown option " + opt);
			}
		}
		if (scenario.equals("nexmark")) {
			if (query == null || !Nexmark.QUERIES.contains(query))
				usage("nexmark wants a query: " + String.join(", ", Nexmark.QUERIES));
			if (bootstrap == null || appId == null || topicPrefix == null || out == null)
				usage("--bootstrap, --app-id, --topic-prefix and --out are required");
		} else if (bootstrap == null || appId == null || in == null || out == null)
			usage("--bootstrap, --app-id, --in and --out are required");
		String pg = switch (guarantee.toLowerCase(Locale.ROOT)) {
		case "at_least_once" -> StreamsConfig.AT_LEAST_ONCE;
		case "exactly_once", "exactly_once_v2" -> StreamsConfig.EXACTLY_ONCE_V2;
		default -> {
			usage("--guarantee is at_least_once or exactly_once");
			yield null;
		}
		};
		if (!java.util.List.of("passthrough", "filter_map", "wordcount", "windowed_tumbling", "windowed_hopping",
				"windowed_final", "join_stream_table", "join_stream_stream", "nexmark").contains(scenario))
			usage("unknown scenario " + scenario);
		if (scenario.startsWith("join_") && in2 == null)
			usage(scenario + " needs --in2 (the table or the right stream)");
		Path tempState = null;
		if (stateDir == null) {
			tempState = Files.createTempDirectory("stoat-bench-ks-");
			stateDir = tempState.toString();
		}

		Properties p = new Properties();
		p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
		p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
		p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, pg);
		p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(commitMs));
		p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, Long.toString(cacheBytes));
		p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Long.toString(threads));
		p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
		p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
		p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
		// The client settings of stoat's Kafka driver (runtime/src/kafka_client.c) where Kafka Streams'
		// defaults differ: read_committed under at-least-once too, zstd, linger.ms 5.
		p.put(StreamsConfig.consumerPrefix(ConsumerConfig.ISOLATION_LEVEL_CONFIG), "read_committed");
		p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "zstd");
		p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), "5");
		// Emit final: Kafka Streams throttles the scan for closed windows to once per wall-clock second
		// (an internal setting); stoat emits as TopologyTestDriver does, on every record, and without
		// this the windows closed in the last second before the input ends would never be emitted.
		if (scenario.equals("windowed_final") || (query != null && Nexmark.EMIT_FINAL.contains(query)))
			p.put("__emit.interval.ms.kstreams.windowed.aggregation__", "0");
		p.putAll(extra);

		StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(p)));
		Topology topology = switch (scenario) {
		case "passthrough" -> passthrough(builder, in, out);
		case "filter_map" -> filterMap(builder, in, out);
		case "windowed_tumbling" -> windowed(builder, in, out, Duration.ofMinutes(1), Duration.ofMinutes(1), false);
		case "windowed_hopping" -> windowed(builder, in, out, Duration.ofMinutes(5), Duration.ofMinutes(1), false);
		case "windowed_final" -> windowed(builder, in, out, Duration.ofMinutes(1), Duration.ofMinutes(1), true);
		case "join_stream_table" -> joinStreamTable(builder, in, in2, out);
		case "join_stream_stream" -> joinStreamStream(builder, in, in2, out, Duration.ofMillis(joinGraceMs));
		case "nexmark" -> Nexmark.build(builder, query, topicPrefix, out);
		default -> wordcount(builder, in, out);
		};
		if (printTopology)
			System.err.print(topology.describe());
		KafkaStreams streams = new KafkaStreams(topology, p);
		if ("q13".equals(query))
			streams.setGlobalStateRestoreListener(Nexmark.sideRestoreCounter());
		AtomicBoolean failed = new AtomicBoolean();
		streams.setUncaughtExceptionHandler(e -> {
			log("error: " + e);
			failed.set(true);
			return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
		});
		long[] runningSince = { 0 };
		streams.setStateListener((now, before) -> {
			if (now == KafkaStreams.State.RUNNING) {
				synchronized (runningSince) {
					if (runningSince[0] == 0)
						log("running after " + sinceStart() + " ms (since the process started)");
					runningSince[0] = System.currentTimeMillis();
				}
			}
		});
		AtomicBoolean stop = new AtomicBoolean();
		Thread mainThread = Thread.currentThread();
		AtomicBoolean cleanStop = new AtomicBoolean();
		Thread hook = new Thread(() -> {
			stop.set(true);
			mainThread.interrupt();
			try {
				mainThread.join(90_000);
			} catch (InterruptedException e) {
				// exiting anyway
			}
			// Closed and reported: exit 0 after a clean stop on SIGTERM/SIGINT, as stoat does
			// (the JVM's own status would be 143 or 130).
			if (cleanStop.get())
				Runtime.getRuntime().halt(0);
		});
		Runtime.getRuntime().addShutdownHook(hook);

		log("Kafka Streams " + kafkaVersion() + ", scenario " + scenario + (query != null ? " " + query : "")
				+ ", " + pg + ", commit " + commitMs + " ms, cache " + cacheBytes + " bytes, " + threads
				+ " thread(s), state " + stateDir);
		streams.start();

		long seen = -1, lastInput = System.currentTimeMillis();
		while (!stop.get()) {
			try {
				Thread.sleep(10);
			} catch (InterruptedException e) {
				break;
			}
			KafkaStreams.State st = streams.state();
			if (st == KafkaStreams.State.ERROR || st == KafkaStreams.State.PENDING_ERROR
					|| st == KafkaStreams.State.PENDING_SHUTDOWN || st == KafkaStreams.State.NOT_RUNNING) {
				failed.set(true);
				log("error: Kafka Streams is " + st);
				break;
			}
			long now = System.currentTimeMillis();
			long total = IN.sum() + REPARTITIONED.sum();
			if (total != seen) {
				seen = total;
				lastInput = now;
			}
			long since;
			synchronized (runningSince) {
				since = runningSince[0];
			}
			if (idleMs > 0 && st == KafkaStreams.State.RUNNING && since > 0
					&& now - Math.max(lastInput, since) >= idleMs) {
				log("no input for " + idleMs + " ms: stopping (--idle-exit)");
				break;
			}
		}
		// Leaving the group, as stoat's driver does at its stop: a run that follows on the same
		// application id (join_stream_table's, after its table run) then joins at once, instead of
		// waiting out this member's session timeout (Kafka Streams' default close stays in the group).
		boolean closed = streams.close(CloseOptions.timeout(Duration.ofSeconds(60))
				.withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
		if (!closed) {
			log("error: Kafka Streams did not close within 60 s");
			failed.set(true);
		}
		if (tempState != null)
			deleteTree(tempState);
		long repart = REPARTITIONED.sum();
		log("records in " + (IN.sum() + repart) + ", out " + OUT.sum() + " (input topic " + IN.sum()
				+ ", repartition topic " + repart + "), " + sinceStart() + " ms");
		System.err.flush();
		boolean signalled = stop.get();
		if (!signalled) {
			try {
				Runtime.getRuntime().removeShutdownHook(hook);
			} catch (IllegalStateException e) {
				signalled = true; // a signal just came: the JVM is shutting down already
			}
		}
		if (signalled) {
			// SIGTERM/SIGINT: the JVM is exiting (the hook waits for us, then halts with 0 if clean)
			cleanStop.set(!failed.get());
			return;
		}
		System.exit(failed.get() ? 1 : 0);
	}

	/* The kafka-streams version the jar was built with (a filtered resource). */
	private static String kafkaVersion() {
		Properties v = new Properties();
		try (var in = Main.class.getResourceAsStream("/stoat-bench-ks.properties")) {
			if (in != null)
				v.load(in);
		} catch (java.io.IOException e) {
			// unknown
		}
		return v.getProperty("kafka.version", "(unknown version)");
	}

	private static void deleteTree(Path dir) {
		try (var paths = Files.walk(dir)) {
			paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
		} catch (java.io.IOException e) {
			log("warning: cannot remove " + dir + ": " + e.getMessage());
		}
	}

}

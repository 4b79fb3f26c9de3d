package stoat.ksref;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindowedKStream;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindowedKStream;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The Kafka Streams reference for stoat's windowed aggregations: builds one windowed
 * topology from the command line, runs an input file in stoat's replay format through
 * TopologyTestDriver (record cache off) and prints the outputs in the replay output format.
 * See tests/ksref/README.md for the arguments and what each topology is.
 */
public final class Main {
    private static final String OUT = "out";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The topology the command line asks for. */
    private static final class Spec {
        String kind;          // tumbling, hopping, sliding, session
        long size = -1;       // tumbling/hopping size, sliding max difference, session gap
        long advance = -1;    // hopping advance
        long grace = -1;
        String agg = "count"; // count, reduce, aggregate
        String emit = "changes"; // changes, final (onWindowClose), suppress (untilWindowCloses)
        boolean filterPositive;  // filter((k, v) -> v > 0) before groupByKey
        Long nullAs;             // aggregate's adder counts a null value as this (else it throws on one)
        String input;
    }

    private static void usage(final String why) {
        System.err.println("ksref: " + why);
        System.err.println("usage: ksref join inner|left [--versioned HISTORY_MS] [--grace MS] INPUT");
        System.err.println("       ksref ttjoin inner|left|outer INPUT");
        System.err.println("       ksref fkjoin inner|left INPUT");
        System.err.println("       ksref globaljoin inner|left INPUT");
        System.err.println("       ksref ssjoin inner|left|outer BEFORE AFTER GRACE INPUT");
        System.err.println("       ksref tumbling SIZE | hopping SIZE ADVANCE | sliding DIFF | session GAP");
        System.err.println("             --grace MS [--agg count|reduce|aggregate] [--emit changes|final|suppress] [--filter-positive] [--null-as N] INPUT");
        System.exit(2);
    }

    private static long ms(final String s) {
        try {
            return Long.parseLong(s);
        } catch (final NumberFormatException e) {
            usage("not a number of milliseconds: " + s);
            return 0;
        }
    }

    /** Parses the command line (see usage). */
    private static Spec parse(final String[] args) {
        final Spec spec = new Spec();
        int i = 0;
        if (args.length == 0) usage("no window kind");
        spec.kind = args[i++];
        switch (spec.kind) {
            case "tumbling", "sliding", "session" -> {
                if (i >= args.length) usage("missing size");
                spec.size = ms(args[i++]);
            }
            case "hopping" -> {
                if (i + 1 >= args.length) usage("missing size or advance");
                spec.size = ms(args[i++]);
                spec.advance = ms(args[i++]);
            }
            default -> usage("unknown window kind " + spec.kind);
        }
        while (i < args.length) {
            final String a = args[i++];
            switch (a) {
                case "--grace" -> spec.grace = ms(i < args.length ? args[i++] : "");
                case "--agg" -> spec.agg = i < args.length ? args[i++] : "";
                case "--emit" -> spec.emit = i < args.length ? args[i++] : "";
                case "--filter-positive" -> spec.filterPositive = true;
                case "--null-as" -> spec.nullAs = ms(i < args.length ? args[i++] : "");
                default -> {
                    if (a.startsWith("--") || spec.input != null) usage("unexpected argument " + a);
                    spec.input = a;
                }
            }
        }
        if (spec.grace < 0) usage("--grace is required (Kafka Streams 3.0+ has no default grace)");
        if (!List.of("count", "reduce", "aggregate").contains(spec.agg)) usage("unknown --agg " + spec.agg);
        if (!List.of("changes", "final", "suppress").contains(spec.emit)) usage("unknown --emit " + spec.emit);
        if (spec.input == null) usage("no input file");
        return spec;
    }

    /** aggregate's addend: the value, or --null-as's for a null one (without it, a null throws as it would). */
    private static long value(final Spec spec, final Long v) {
        return v == null && spec.nullAs != null ? spec.nullAs : v;
    }

    /** The windowed key in the design's JSON form {"key":K,"start":S,"end":E}. */
    private static String windowedJson(final Windowed<String> w) {
        final ObjectNode o = JSON.createObjectNode();
        o.put("key", w.key());
        o.put("start", w.window().start());
        o.put("end", w.window().end());
        return o.toString();
    }

    /**
     * Builds: stream(topic) (String key, Long value) [|> filter(v > 0)] |> groupByKey |> windowedBy(...)
     * [|> emitStrategy(onWindowClose)] |> count | reduce(sum) | aggregate(0, sum[, merger sum])
     * [|> suppress(untilWindowCloses(unbounded))] |> toStream |> key as JSON |> to "out".
     */
    private static Topology build(final Spec spec, final String topic) {
        final StreamsBuilder builder = new StreamsBuilder();
        KStream<String, Long> in = builder.stream(topic, Consumed.with(Serdes.String(), Serdes.Long()));
        if (spec.filterPositive) in = in.filter((k, v) -> v != null && v > 0);
        final KGroupedStream<String, Long> grouped = in.groupByKey(Grouped.with(Serdes.String(), Serdes.Long()));
        final Duration grace = Duration.ofMillis(spec.grace);
        final boolean onClose = spec.emit.equals("final");
        KTable<Windowed<String>, Long> table;
        if (spec.kind.equals("session")) {
            SessionWindowedKStream<String, Long> w =
                grouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(spec.size), grace));
            if (onClose) w = w.emitStrategy(EmitStrategy.onWindowClose());
            final Materialized<String, Long, SessionStore<Bytes, byte[]>> m =
                Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("agg")
                    .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long());
            table = switch (spec.agg) {
                case "count" -> w.count(m);
                case "reduce" -> w.reduce(Long::sum, m);
                default -> w.aggregate(() -> 0L, (k, v, acc) -> acc + value(spec, v), (k, a, b) -> a + b, m);
            };
        } else {
            TimeWindowedKStream<String, Long> w = switch (spec.kind) {
                case "tumbling" -> grouped.windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(spec.size), grace));
                case "hopping" -> grouped.windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(spec.size), grace)
                    .advanceBy(Duration.ofMillis(spec.advance)));
                default -> grouped.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(spec.size), grace));
            };
            if (onClose) w = w.emitStrategy(EmitStrategy.onWindowClose());
            final Materialized<String, Long, WindowStore<Bytes, byte[]>> m =
                Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("agg")
                    .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long());
            table = switch (spec.agg) {
                case "count" -> w.count(m);
                case "reduce" -> w.reduce(Long::sum, m);
                default -> w.aggregate(() -> 0L, (k, v, acc) -> acc + value(spec, v), m);
            };
        }
        if (spec.emit.equals("suppress")) {
            table = table.suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()));
        }
        table.toStream()
            .selectKey((k, v) -> windowedJson(k))
            .to(OUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /** One input line of the replay format (docs/replay-format.md), the fields the cases use. */
    private record Input(String topic, long timestamp, String key, Long value) { }

    private static List<Input> read(final String path) throws IOException {
        final List<Input> out = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(Path.of(path), StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.isBlank()) continue;
                final JsonNode o = JSON.readTree(line);
                final var names = o.fieldNames();
                while (names.hasNext()) {
                    final String f = names.next();
                    if (!List.of("topic", "partition", "timestamp", "key", "value").contains(f)) {
                        throw new IOException(path + ":" + n + ": field " + f + " is not supported by ksref");
                    }
                }
                if (o.path("partition").asLong(0) != 0) {
                    throw new IOException(path + ":" + n + ": ksref reads partition 0 only (TopologyTestDriver has one)");
                }
                final JsonNode k = o.get("key");
                final JsonNode v = o.get("value");
                out.add(new Input(o.get("topic").asText(), o.path("timestamp").asLong(0),
                    k == null || k.isNull() ? null : k.asText(),
                    v == null || v.isNull() ? null : v.asLong()));
            }
        }
        return out;
    }

    /** The replay output line of one record (key and value strings or null, as JSON strings). */
    private static String textLine(final long offset, final TestRecord<?, String> rec) {
        return "{\"topic\":\"" + OUT + "\",\"partition\":0,\"offset\":" + offset + ",\"timestamp\":"
            + rec.timestamp() + ",\"key\":" + (rec.key() == null ? "null" : JSON.valueToTree(rec.key()).toString())
            + ",\"value\":" + (rec.value() == null ? "null" : JSON.valueToTree(rec.value()).toString()) + "}";
    }

    /**
     * join inner|left [--versioned HISTORY_MS] [--grace MS] INPUT: stream("stream") joined with
     * table("table") (String keys and values) by (v, t) -> v + "+" + t (Java prints a null t as
     * "null"), to "out": the stream-table join of tests/e2e/ks_stream_table_*; with --versioned the
     * table is materialised in a versioned store (Stores.persistentVersionedKeyValueStore, KIP-889)
     * of that history, as tests/e2e/versioned_*; --grace adds Joined.withGracePeriod (KIP-923,
     * needs --versioned). Input lines are piped in file order to their topic.
     */
    private static void join(final String[] args) throws Exception {
        final String usage = "join inner|left [--versioned HISTORY_MS] [--grace MS] INPUT";
        if (args.length < 3 || !List.of("inner", "left").contains(args[1])) usage(usage);
        Long history = null, grace = null;
        for (int i = 2; i < args.length - 1; i += 2) {
            if (i + 1 >= args.length - 1) usage(usage);
            if (args[i].equals("--versioned")) history = Long.parseLong(args[i + 1]);
            else if (args[i].equals("--grace")) grace = Long.parseLong(args[i + 1]);
            else usage(usage);
        }
        final StreamsBuilder builder = new StreamsBuilder();
        final Consumed<String, String> consumed = Consumed.with(Serdes.String(), Serdes.String());
        final KStream<String, String> stream = builder.stream("stream", consumed);
        final KTable<String, String> table = history != null
            ? builder.table("table", consumed, Materialized.<String, String>as(
                Stores.persistentVersionedKeyValueStore("table-versions", Duration.ofMillis(history)))
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
            : builder.table("table", consumed);
        final KStream<String, String> joined;
        if (grace != null) {
            final Joined<String, String, String> j =
                Joined.with(Serdes.String(), Serdes.String(), Serdes.String(), "Grace", Duration.ofMillis(grace));
            joined = args[1].equals("left")
                ? stream.leftJoin(table, (v, t) -> v + "+" + t, j)
                : stream.join(table, (v, t) -> v + "+" + t, j);
        } else {
            joined = args[1].equals("left")
                ? stream.leftJoin(table, (v, t) -> v + "+" + t)
                : stream.join(table, (v, t) -> v + "+" + t);
        }
        joined.to(OUT, Produced.with(Serdes.String(), Serdes.String()));
        pipe(builder, args[args.length - 1], List.of("stream", "table"));
    }

    /**
     * ttjoin inner|left|outer INPUT: table("left") joined with table("right") (String keys and
     * values) by (a, b) -> a + "+" + b (Java prints a null side as "null"), its toStream() to "out":
     * the table-table joins of tests/e2e/ks_table_table_*. Input lines are piped in file order to
     * their topic.
     */
    private static void ttjoin(final String[] args) throws Exception {
        if (args.length != 3 || !List.of("inner", "left", "outer").contains(args[1])) usage("ttjoin inner|left|outer INPUT");
        final StreamsBuilder builder = new StreamsBuilder();
        final Consumed<String, String> consumed = Consumed.with(Serdes.String(), Serdes.String());
        final KTable<String, String> left = builder.table("left", consumed);
        final KTable<String, String> right = builder.table("right", consumed);
        final KTable<String, String> joined = switch (args[1]) {
            case "left" -> left.leftJoin(right, (a, b) -> a + "+" + b);
            case "outer" -> left.outerJoin(right, (a, b) -> a + "+" + b);
            default -> left.join(right, (a, b) -> a + "+" + b);
        };
        joined.toStream().to(OUT, Produced.with(Serdes.String(), Serdes.String()));
        pipe(builder, args[2], List.of("left", "right"));
    }

    /**
     * fkjoin inner|left INPUT: table("left") joined on a foreign key with table("right") (String
     * keys and values): the foreign key is the left value's part after its first '|', null when
     * that part is "returnNull" (as KTableKTableForeignKeyJoinIntegrationTest's extractors), the
     * joiner (a, b) -> "(" + a + "," + b + ")" (Java prints a null side as "null"), its
     * toStream() to "out": the foreign-key joins of tests/e2e/ks_fk_join_*. Input lines are piped
     * in file order to their topic.
     */
    private static void fkjoin(final String[] args) throws Exception {
        if (args.length != 3 || !List.of("inner", "left").contains(args[1])) usage("fkjoin inner|left INPUT");
        final StreamsBuilder builder = new StreamsBuilder();
        final Consumed<String, String> consumed = Consumed.with(Serdes.String(), Serdes.String());
        final KTable<String, String> left = builder.table("left", consumed);
        final KTable<String, String> right = builder.table("right", consumed);
        final java.util.function.Function<String, String> fk = v -> {
            final String f = v.substring(v.indexOf('|') + 1);
            return f.equals("returnNull") ? null : f;
        };
        final KTable<String, String> joined = args[1].equals("left")
            ? left.leftJoin(right, fk, (a, b) -> "(" + a + "," + b + ")")
            : left.join(right, fk, (a, b) -> "(" + a + "," + b + ")");
        joined.toStream().to(OUT, Produced.with(Serdes.String(), Serdes.String()));
        pipe(builder, args[2], List.of("left", "right"));
    }

    /**
     * globaljoin inner|left INPUT: stream("stream") (Integer keys, String values) joined with
     * globalTable("global") (String keys and values) on the key selector (k, v) -> the second
     * comma-separated token of v, null if there is none (as KStreamGlobalKTableJoinTest's mapper),
     * by (v, x) -> v + "+" + x (Java prints a null x as "null"), to "out": the stream-global-table
     * joins of tests/e2e/ks_global_*. Input lines are piped in file order to their topic; a global
     * table's record is applied as it is piped.
     */
    private static void globaljoin(final String[] args) throws Exception {
        if (args.length != 3 || !List.of("inner", "left").contains(args[1])) usage("globaljoin inner|left INPUT");
        final StreamsBuilder builder = new StreamsBuilder();
        final KStream<Integer, String> stream = builder.stream("stream", Consumed.with(Serdes.Integer(), Serdes.String()));
        final GlobalKTable<String, String> global =
            builder.globalTable("global", Consumed.with(Serdes.String(), Serdes.String()));
        final org.apache.kafka.streams.kstream.KeyValueMapper<Integer, String, String> selector = (k, v) -> {
            if (v == null) return null;
            final String[] parts = v.split(",");
            return parts.length > 1 ? parts[1] : null;
        };
        final KStream<Integer, String> joined = args[1].equals("left")
            ? stream.leftJoin(global, selector, (v, x) -> v + "+" + x)
            : stream.join(global, selector, (v, x) -> v + "+" + x);
        joined.to(OUT, Produced.with(Serdes.Integer(), Serdes.String()));
        pipe(builder, args[2], List.of("stream", "global"), List.of("stream"));
    }

    /**
     * ssjoin inner|left|outer BEFORE AFTER GRACE INPUT (milliseconds): stream("left") joined with
     * stream("right") (String keys and values) within JoinWindows.ofTimeDifferenceAndGrace(0, GRACE)
     * .before(BEFORE).after(AFTER) by (v, w) -> v + "+" + w (Java prints a missing side as "null"),
     * to "out": the stream-stream joins of tests/e2e/ks_stream_stream_*. Input lines are piped in
     * file order to their topic; TopologyTestDriver turns the outer join's emit throttle off.
     */
    private static void ssjoin(final String[] args) throws Exception {
        if (args.length != 6 || !List.of("inner", "left", "outer").contains(args[1])) {
            usage("ssjoin inner|left|outer BEFORE AFTER GRACE INPUT");
        }
        final JoinWindows windows = JoinWindows.ofTimeDifferenceAndGrace(Duration.ZERO, Duration.ofMillis(ms(args[4])))
            .before(Duration.ofMillis(ms(args[2]))).after(Duration.ofMillis(ms(args[3])));
        final StreamsBuilder builder = new StreamsBuilder();
        final Consumed<String, String> consumed = Consumed.with(Serdes.String(), Serdes.String());
        final KStream<String, String> left = builder.stream("left", consumed);
        final KStream<String, String> right = builder.stream("right", consumed);
        final StreamJoined<String, String, String> joined =
            StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String());
        final KStream<String, String> out = switch (args[1]) {
            case "left" -> left.leftJoin(right, (v, w) -> v + "+" + w, windows, joined);
            case "outer" -> left.outerJoin(right, (v, w) -> v + "+" + w, windows, joined);
            default -> left.join(right, (v, w) -> v + "+" + w, windows, joined);
        };
        out.to(OUT, Produced.with(Serdes.String(), Serdes.String()));
        pipe(builder, args[5], List.of("left", "right"));
    }

    /** Pipes INPUT's lines in file order to their topics (String keys and values), printing "out". */
    private static void pipe(final StreamsBuilder builder, final String input, final List<String> topics) throws Exception {
        pipe(builder, input, topics, List.of());
    }

    /**
     * As pipe(builder, input, topics), but the topics in intKeys and "out" have Integer keys (JSON
     * numbers in INPUT and in the output lines), as the e2e cases that port Kafka Streams tests keyed
     * by Integer declare them (i32).
     */
    @SuppressWarnings("unchecked")
    private static void pipe(final StreamsBuilder builder, final String input, final List<String> topics,
                             final List<String> intKeys) throws Exception {
        final List<String[]> inputs = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(Path.of(input), StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank()) continue;
                final JsonNode o = JSON.readTree(line);
                final JsonNode k = o.get("key");
                final JsonNode v = o.get("value");
                inputs.add(new String[] { o.get("topic").asText(), o.path("timestamp").asText("0"),
                    k == null || k.isNull() ? null : k.asText(), v == null || v.isNull() ? null : v.asText() });
            }
        }
        final PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props(), Instant.EPOCH)) {
            final Map<String, TestInputTopic<Object, String>> in = new HashMap<>();
            for (final String t : topics) {
                in.put(t, (TestInputTopic<Object, String>) (TestInputTopic<?, String>) (intKeys.contains(t)
                    ? driver.createInputTopic(t, new IntegerSerializer(), new StringSerializer())
                    : driver.createInputTopic(t, new StringSerializer(), new StringSerializer())));
            }
            final TestOutputTopic<?, String> o = intKeys.isEmpty()
                ? driver.createOutputTopic(OUT, new StringDeserializer(), new StringDeserializer())
                : driver.createOutputTopic(OUT, new IntegerDeserializer(), new StringDeserializer());
            long offset = 0;
            for (final String[] r : inputs) {
                final TestInputTopic<Object, String> t = in.get(r[0]);
                if (t == null) throw new IOException("ksref: topic " + r[0] + " (expected one of " + topics + ")");
                final Object key = r[2] == null ? null : intKeys.contains(r[0]) ? (Object) Integer.valueOf(r[2]) : r[2];
                t.pipeInput(key, r[3], Long.parseLong(r[1]));
                for (final TestRecord<?, String> rec : o.readRecordsToList()) out.println(textLine(offset++, rec));
            }
        }
        out.flush();
    }

    /** The driver's configuration: record cache off, no emit throttle, a fresh state directory. */
    private static Properties props() throws IOException {
        final Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ksref");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        // emit final: no wall-clock throttle (TopologyTestDriver's wall clock stands still, so the
        // default 1000 ms throttle would hold back every emission after the first).
        props.put(StreamsConfig.InternalConfig.EMIT_INTERVAL_MS_KSTREAMS_WINDOWED_AGGREGATION, 0L);
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("ksref").toString());
        return props;
    }

    public static void main(final String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("join")) {
            join(args);
            return;
        }
        if (args.length > 0 && args[0].equals("ttjoin")) {
            ttjoin(args);
            return;
        }
        if (args.length > 0 && args[0].equals("fkjoin")) {
            fkjoin(args);
            return;
        }
        if (args.length > 0 && args[0].equals("globaljoin")) {
            globaljoin(args);
            return;
        }
        if (args.length > 0 && args[0].equals("ssjoin")) {
            ssjoin(args);
            return;
        }
        final Spec spec = parse(args);
        final List<Input> inputs = read(spec.input);
        if (inputs.isEmpty()) return;
        final String topic = inputs.get(0).topic();
        for (final Input r : inputs) {
            if (!r.topic().equals(topic)) throw new IOException("ksref: one input topic only (" + topic + ", " + r.topic() + ")");
        }
        final PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (TopologyTestDriver driver = new TopologyTestDriver(build(spec, topic), props(), Instant.EPOCH)) {
            final TestInputTopic<String, Long> in =
                driver.createInputTopic(topic, new StringSerializer(), new LongSerializer());
            final TestOutputTopic<String, Long> o =
                driver.createOutputTopic(OUT, new StringDeserializer(), new LongDeserializer());
            long offset = 0;
            for (final Input r : inputs) {
                in.pipeInput(r.key(), r.value(), r.timestamp());
                for (final TestRecord<String, Long> rec : o.readRecordsToList()) {
                    out.println("{\"topic\":\"" + OUT + "\",\"partition\":0,\"offset\":" + (offset++)
                        + ",\"timestamp\":" + rec.timestamp() + ",\"key\":" + rec.key()
                        + ",\"value\":" + (rec.value() == null ? "null" : rec.value().toString()) + "}");
                }
            }
        }
        out.flush();
    }
}

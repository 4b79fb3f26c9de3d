package stoat.bench.flink;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * The Flink SQL peer of stoat's Nexmark benchmark: one reference query (Queries) in a local
 * mini-cluster, parallelism 1, from the generator's three topics to one output topic, until the
 * input is drained (bounded sources). See bench/flink/README.md.
 */
public final class Main {
	private static final String USAGE = String.join("\n",
			"usage: java -jar stoat-bench-flink.jar QUERY --bootstrap HOST:PORT --topic-prefix P --out TOPIC",
			"         --group ID [--checkpoint-interval-ms 100] [--guarantee at_least_once|exactly_once]",
			"         [--state rocksdb|hashmap] [--explain]",
			"       QUERY: " + String.join(" ", Queries.ALL.keySet()));

	private static long processStartMs;
	private static String name = "stoat-bench-flink";

	private Main() {
	}

	/* A line on stderr, prefixed with the consumer group (as bench/ks prefixes its application id). */
	static void log(String msg) {
		System.err.println(name + ": " + msg);
		System.err.flush();
	}

	static long sinceStart() {
		return System.currentTimeMillis() - processStartMs;
	}

	private static void usage(String why) {
		System.err.println("stoat-bench-flink: " + why);
		System.err.println(USAGE);
		System.exit(2);
	}

	/*
	 * The source tables: the generator's JSON values with the reference's field names. dateTime
	 * (and expires) stay BIGINT milliseconds, as the generator writes them and stoat's output
	 * carries them; event time is the computed event_time with the reference's watermark (ddl_kafka.sql:
	 * 4 s out of order). Earliest offset to the end offsets at the start (the job ends when drained).
	 * "side" is q13's side input (Queries).
	 */
	private static String sourceDdl(String table, String prefix, String bootstrap, String group) {
		if (table.equals("side"))
			return "CREATE TABLE side_input (\n"
					+ "  key STRING,\n"
					+ "  `value` STRING,\n"
					// Time 0 for every row: each bid's time finds the whole side input.
					+ "  side_time AS TO_TIMESTAMP_LTZ(0, 3),\n"
					+ "  WATERMARK FOR side_time AS side_time,\n"
					+ "  PRIMARY KEY (key) NOT ENFORCED\n"
					+ ") WITH (\n"
					+ "  'connector' = 'upsert-kafka',\n"
					+ "  'topic' = '" + prefix + "-side',\n"
					+ "  'properties.bootstrap.servers' = '" + bootstrap + "',\n"
					+ "  'properties.group.id' = '" + group + "',\n"
					+ "  'properties.isolation.level' = 'read_committed',\n"
					+ "  'scan.bounded.mode' = 'latest-offset',\n"
					+ "  'key.format' = 'raw',\n"
					+ "  'value.format' = 'raw',\n"
					+ "  'value.fields-include' = 'EXCEPT_KEY'\n"
					+ ")";
		String columns = switch (table) {
		case "person" -> "id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, "
				+ "state STRING, `dateTime` BIGINT, extra STRING";
		case "auction" -> "id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, "
				+ "`dateTime` BIGINT, expires BIGINT, seller BIGINT, category BIGINT, extra STRING";
		case "bid" -> "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
				+ "`dateTime` BIGINT, extra STRING";
		default -> throw new IllegalArgumentException(table);
		};
		return "CREATE TABLE " + table + " (\n  " + columns + ",\n"
				+ "  event_time AS TO_TIMESTAMP_LTZ(`dateTime`, 3),\n"
				+ "  WATERMARK FOR event_time AS event_time - INTERVAL '4' SECOND\n"
				+ ") WITH (\n"
				+ "  'connector' = 'kafka',\n"
				+ "  'topic' = '" + prefix + "-" + table + "',\n"
				+ "  'properties.bootstrap.servers' = '" + bootstrap + "',\n"
				+ "  'properties.group.id' = '" + group + "',\n"
				// As stoat's driver and bench/ks: committed records only, under at-least-once too.
				+ "  'properties.isolation.level' = 'read_committed',\n"
				+ "  'scan.startup.mode' = 'earliest-offset',\n"
				+ "  'scan.bounded.mode' = 'latest-offset',\n"
				+ "  'format' = 'json',\n"
				+ "  'json.fail-on-missing-field' = 'true'\n"
				+ ")";
	}

	/*
	 * The sink: the key k as the record key (raw UTF-8 bytes), the other columns as the JSON value.
	 * An updating query writes through upsert-kafka (an upsert per change, a tombstone per delete).
	 */
	private static String sinkDdl(Query q, String out, String bootstrap, String group, boolean exactlyOnce) {
		StringBuilder s = new StringBuilder("CREATE TABLE sink (\n  ").append(q.columns());
		if (q.stamped())
			s.append(",\n  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'");
		if (q.upsert())
			s.append(",\n  PRIMARY KEY (k) NOT ENFORCED");
		s.append("\n) WITH (\n");
		s.append("  'connector' = '").append(q.upsert() ? "upsert-kafka" : "kafka").append("',\n");
		s.append("  'topic' = '").append(out).append("',\n");
		s.append("  'properties.bootstrap.servers' = '").append(bootstrap).append("',\n");
		// The producer settings in which stoat's driver differs from the clients' defaults (bench/ks does the same).
		s.append("  'properties.compression.type' = 'zstd',\n");
		s.append("  'properties.linger.ms' = '5',\n");
		s.append("  'key.format' = 'raw',\n");
		if (!q.upsert())
			s.append("  'key.fields' = 'k',\n");
		s.append("  'value.format' = 'json',\n");
		s.append("  'value.json.encode.decimal-as-plain-number' = 'true',\n");
		s.append("  'value.fields-include' = 'EXCEPT_KEY',\n");
		if (exactlyOnce) {
			s.append("  'sink.delivery-guarantee' = 'exactly-once',\n");
			s.append("  'sink.transactional-id-prefix' = '").append(group).append("',\n");
			// Flink's default is 1 h, above the broker's transaction.max.timeout.ms (15 min), which
			// refuses the producer; a transaction lives one checkpoint interval.
			s.append("  'properties.transaction.timeout.ms' = '60000'\n");
		} else {
			s.append("  'sink.delivery-guarantee' = 'at-least-once'\n");
		}
		return s.append(")").toString();
	}

	/*
	 * How many records the bounded sources will read: for each partition of the query's input
	 * topics, its end offset less its start offset now, before the job starts (the sources stop at
	 * the end offsets they find at their start). Flink's own counters are per task and not at hand
	 * once the mini-cluster has stopped; this is the same number when nothing is written meanwhile.
	 */
	private static long inputRecords(String bootstrap, List<String> topics) throws Exception {
		Properties p = new Properties();
		p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
		try (Admin admin = Admin.create(p)) {
			Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get();
			Map<TopicPartition, OffsetSpec> earliest = new HashMap<>(), latest = new HashMap<>();
			for (TopicDescription d : described.values())
				d.partitions().forEach(i -> {
					TopicPartition tp = new TopicPartition(d.name(), i.partition());
					earliest.put(tp, OffsetSpec.earliest());
					latest.put(tp, OffsetSpec.latest());
				});
			var from = admin.listOffsets(earliest).all().get();
			var to = admin.listOffsets(latest).all().get();
			long n = 0;
			for (TopicPartition tp : to.keySet())
				n += to.get(tp).offset() - from.get(tp).offset();
			return n;
		}
	}

	/* rm -r, for the checkpoint directory. */
	private static void removeTree(Path dir) {
		try (Stream<Path> paths = Files.walk(dir)) {
			paths.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
		} catch (IOException e) {
			// Left behind under $TMPDIR: harmless.
		}
	}

	public static void main(String[] args) throws Exception {
		processStartMs = ManagementFactory.getRuntimeMXBean().getStartTime();
		if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) {
			System.out.println(USAGE);
			return;
		}
		String queryName = args[0];
		Query q = Queries.ALL.get(queryName);
		if (q == null)
			usage("unknown query " + queryName);
		String bootstrap = null, prefix = null, out = null, group = null;
		String guarantee = "at_least_once", state = "rocksdb";
		long checkpointMs = 100;
		boolean explain = false;
		for (int i = 1; i < args.length; i++) {
			String a = args[i];
			if (a.equals("--explain")) {
				explain = true;
				continue;
			}
			if (i + 1 >= args.length)
				usage("missing value after " + a);
			String v = args[++i];
			switch (a) {
			case "--bootstrap" -> bootstrap = v;
			case "--topic-prefix" -> prefix = v;
			case "--out" -> out = v;
			case "--group" -> group = v;
			case "--checkpoint-interval-ms" -> checkpointMs = Long.parseLong(v);
			case "--guarantee" -> guarantee = v;
			case "--state" -> state = v;
			default -> usage("unknown option " + a);
			}
		}
		if (bootstrap == null || prefix == null || out == null || group == null)
			usage("--bootstrap, --topic-prefix, --out and --group are required");
		if (!guarantee.equals("at_least_once") && !guarantee.equals("exactly_once"))
			usage("--guarantee must be at_least_once or exactly_once");
		if (!state.equals("rocksdb") && !state.equals("hashmap"))
			usage("--state must be rocksdb or hashmap");
		name = group;
		boolean exactlyOnce = guarantee.equals("exactly_once");

		Path checkpoints = Files.createTempDirectory("stoat-bench-flink-");
		Configuration conf = new Configuration();
		conf.setString("parallelism.default", "1");
		// The mini-cluster on loopback only, on ports the system picks (other runs share the machine).
		for (String k : List.of("jobmanager.bind-host", "taskmanager.bind-host", "taskmanager.host", "rest.address",
				"rest.bind-address"))
			conf.setString(k, "127.0.0.1");
		conf.setString("rest.bind-port", "0");
		conf.setString("execution.checkpointing.interval", checkpointMs + " ms");
		conf.setString("execution.checkpointing.mode", exactlyOnce ? "EXACTLY_ONCE" : "AT_LEAST_ONCE");
		conf.setString("execution.checkpointing.storage", "filesystem");
		conf.setString("execution.checkpointing.dir", checkpoints.toUri().toString());
		conf.setString("state.backend.type", state);
		// RocksDB checkpoints copy only the files written since the last one, as Nexmark's own Flink
		// configuration has it (state.backend.incremental: true): a full snapshot every 100 ms of a
		// state that grows with the input (q23's joins keep every record) makes a run quadratic.
		conf.setString("execution.checkpointing.incremental", "true");
		// A failure fails the job (and the run), as the other peers stop on an error; Flink's
		// default with checkpointing restarts the job without end.
		conf.setString("restart-strategy.type", "none");
		// HOUR() and DATE_FORMAT() of event time in UTC, as stoat's date() and hour_of_day().
		conf.setString("table.local-time-zone", "UTC");
		conf.setString("pipeline.name", "stoat-bench-flink " + queryName);
		// q19's sink key "auction/rank" is a one-to-one function of its rows' unique key (auction,
		// rank_number): one key's changes come from one row, in order. The planner cannot see
		// through the concatenation and would add a SinkUpsertMaterializer (a state of every key's
		// rows) for nothing. (The other updating queries group by the key itself: Queries.KEYED_BY_K.)
		conf.setString("table.exec.sink.upsert-materialize", "NONE");

		TableEnvironment t = TableEnvironment.create(
				EnvironmentSettings.newInstance().inStreamingMode().withConfiguration(conf).build());
		t.createTemporarySystemFunction("count_char", Functions.CountChar.class);
		t.createTemporarySystemFunction("MILLIS", Functions.Millis.class);
		t.createTemporarySystemFunction("MARK", Functions.Mark.class);
		for (String table : q.inputs())
			t.executeSql(sourceDdl(table, prefix, bootstrap, group));
		t.executeSql(sinkDdl(q, out, bootstrap, group, exactlyOnce));
		String insert = "INSERT INTO sink\n" + q.select();
		if (explain) {
			System.err.println(t.explainSql(insert, ExplainDetail.CHANGELOG_MODE));
			removeTree(checkpoints);
			return;
		}
		List<String> topics = new ArrayList<>();
		for (String table : q.inputs())
			topics.add(prefix + "-" + table);
		long in = inputRecords(bootstrap, topics);
		log("running after " + sinceStart() + " ms (since the process started)");
		long started = System.currentTimeMillis();
		int status = 0;
		try {
			TableResult r = t.executeSql(insert);
			r.await();
		} catch (Exception e) {
			log("the job failed: " + e);
			for (Throwable c = e.getCause(); c != null; c = c.getCause())
				log("  caused by: " + c);
			status = 1;
		}
		long ms = System.currentTimeMillis() - started;
		log("records in " + in + " (the input topics' records at the start), job " + ms + " ms, process "
				+ sinceStart() + " ms");
		removeTree(checkpoints);
		// The mini-cluster leaves non-daemon threads behind.
		System.exit(status);
	}
}

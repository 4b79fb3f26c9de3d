package stoat.bench.ks;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.KeyValueMapper;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import stoat.bench.ks.NexmarkTypes.Auction;
import stoat.bench.ks.NexmarkTypes.AuctionCount;
import stoat.bench.ks.NexmarkTypes.Bid;
import stoat.bench.ks.NexmarkTypes.BidAuction;
import stoat.bench.ks.NexmarkTypes.BidPerson;
import stoat.bench.ks.NexmarkTypes.Counts16;
import stoat.bench.ks.NexmarkTypes.Dated15;
import stoat.bench.ks.NexmarkTypes.Dated16;
import stoat.bench.ks.NexmarkTypes.Highest;
import stoat.bench.ks.NexmarkTypes.Joined15;
import stoat.bench.ks.NexmarkTypes.Joined16;
import stoat.bench.ks.NexmarkTypes.Person;
import stoat.bench.ks.NexmarkTypes.Q1;
import stoat.bench.ks.NexmarkTypes.Q10;
import stoat.bench.ks.NexmarkTypes.Q11;
import stoat.bench.ks.NexmarkTypes.Q13;
import stoat.bench.ks.NexmarkTypes.Q14;
import stoat.bench.ks.NexmarkTypes.Q15;
import stoat.bench.ks.NexmarkTypes.Q16;
import stoat.bench.ks.NexmarkTypes.Q17;
import stoat.bench.ks.NexmarkTypes.Q19;
import stoat.bench.ks.NexmarkTypes.Q2;
import stoat.bench.ks.NexmarkTypes.Q20;
import stoat.bench.ks.NexmarkTypes.Q21;
import stoat.bench.ks.NexmarkTypes.Q22;
import stoat.bench.ks.NexmarkTypes.Q23;
import stoat.bench.ks.NexmarkTypes.Q3;
import stoat.bench.ks.NexmarkTypes.Q4;
import stoat.bench.ks.NexmarkTypes.Q5;
import stoat.bench.ks.NexmarkTypes.Q7;
import stoat.bench.ks.NexmarkTypes.Q8;
import stoat.bench.ks.NexmarkTypes.Q9;
import stoat.bench.ks.NexmarkTypes.Ranked;
import stoat.bench.ks.NexmarkTypes.Ranks;
import stoat.bench.ks.NexmarkTypes.Ranks16;
import stoat.bench.ks.NexmarkTypes.Seen;
import stoat.bench.ks.NexmarkTypes.Stats;
import stoat.bench.ks.NexmarkTypes.Sum;
import stoat.bench.ks.NexmarkTypes.Top;
import stoat.bench.ks.NexmarkTypes.Winning;

/**
 * The Nexmark queries on Kafka Streams: each the topology of bench/nexmark/queries/qN.stoat
 * (whose header says why it has that form), with the same stores (RocksDB, the record cache in
 * front), windows, grace and emit strategy, repartitions and joins, output key and JSON value, so
 * that tests/nexmark/reference.py checks both. Inputs: the generator's topics P-person,
 * P-auction, P-bid (string keys = decimal ids, a bid keyed by its auction) and q13's P-side.
 * A stoat `group_by` that changes the key is written as selectKey + repartition + groupByKey
 * (what groupBy compiles to) so that a peek counts the records read back; a table's groupBy
 * counts them in its repartition key's deserializer. See bench/ks/README.md.
 */
final class Nexmark {
	private Nexmark() {
	}

	/** The queries, in bench/nexmark/README.md's order. */
	static final List<String> QUERIES = List.of("q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8", "q9", "q10", "q11",
			"q13", "q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22", "q23");

	/** The queries with emit-final windows (Main drops Kafka Streams' once-a-second throttle for them). */
	static final List<String> EMIT_FINAL = List.of("q5", "q7", "q11");

	/** q13's global table's store, whose records are restored at start-up, not processed. */
	static final String SIDE_STORE = "side_input";

	private static final Serde<String> KEY = Main.nonNullString();

	private static <T> Serde<T> json(Class<T> type) {
		return NexmarkJson.serde(type);
	}

	/* A RocksDB key-value store with String keys and JSON values of `type`. */
	private static <V> Materialized<String, V, KeyValueStore<Bytes, byte[]>> store(String name, Class<V> type) {
		return Materialized.<String, V, KeyValueStore<Bytes, byte[]>>as(name).withKeySerde(Serdes.String())
				.withValueSerde(json(type));
	}

	private static KStream<String, Bid> bids(StreamsBuilder b, String prefix) {
		return b.stream(prefix + "-bid", Consumed.with(KEY, json(Bid.class))).peek(Main::input);
	}

	private static KStream<String, Auction> auctions(StreamsBuilder b, String prefix) {
		return b.stream(prefix + "-auction", Consumed.with(KEY, json(Auction.class))).peek(Main::input);
	}

	private static KStream<String, Person> persons(StreamsBuilder b, String prefix) {
		return b.stream(prefix + "-person", Consumed.with(KEY, json(Person.class))).peek(Main::input);
	}

	/* A source table of the topic prefix-kind, its records counted as input (a table has no peek). */
	private static <V> KTable<String, V> table(StreamsBuilder b, String topic, String name, Class<V> type) {
		return b.table(topic, Consumed.with(KEY, NexmarkJson.counted(type, Main.IN, topic)), store(name, type));
	}

	/* stoat's select_key (or a key-changing group_by) and the repartition it calls for, counted. */
	private static <V> KStream<String, V> rekey(KStream<String, V> s, String name, Class<V> type,
			KeyValueMapper<String, V, String> key) {
		return s.selectKey(key)
				.repartition(Repartitioned.<String, V>as(name).withKeySerde(KEY).withValueSerde(json(type)))
				.peek((k, v) -> Main.REPARTITIONED.increment());
	}

	private static <V> KGroupedStream<String, V> groupBy(KStream<String, V> s, String name, Class<V> type,
			KeyValueMapper<String, V, String> key) {
		return rekey(s, name, type, key).groupByKey(Grouped.with(KEY, json(type)));
	}

	/* The `to`: String key, the value as JSON, through the peek that counts the output. */
	private static <V> void sink(KStream<String, V> s, String out, Class<V> type) {
		s.peek(Main::output).to(out, Produced.with(Serdes.String(), json(type)));
	}

	// ------------------------------------------------------------------ stoat's standard library

	/* date(from_millis(ms)): yyyy-MM-dd in UTC. */
	static String day(long ms) {
		return LocalDate.ofEpochDay(Math.floorDiv(ms, 86_400_000L)).toString();
	}

	/* hour_of_day(from_millis(ms)) in UTC. */
	static int hour(long ms) {
		return (int) (Math.floorMod(ms, 86_400_000L) / 3_600_000L);
	}

	/* pad_left(hour, 2, "0") + ":" + pad_left(minute, 2, "0"), in UTC. */
	static String hourMinute(long ms) {
		int h = hour(ms), m = (int) (Math.floorMod(ms, 3_600_000L) / 60_000L);
		return new String(new char[] { (char) ('0' + h / 10), (char) ('0' + h % 10), ':', (char) ('0' + m / 10),
				(char) ('0' + m % 10) });
	}

	/* stoat's split: every piece, empty ones too (String.split drops trailing empties). */
	static List<String> split(String s, char sep) {
		List<String> parts = new ArrayList<>();
		int from = 0;
		for (int i = s.indexOf(sep); i >= 0; i = s.indexOf(sep, from)) {
			parts.add(s.substring(from, i));
			from = i + 1;
		}
		parts.add(s.substring(from));
		return parts;
	}

	static long count(String s, char c) {
		long n = 0;
		for (int i = 0; i < s.length(); i++)
			if (s.charAt(i) == c)
				n++;
		return n;
	}

	private static long rank1(long price) {
		return price < 10000 ? 1 : 0;
	}

	private static long rank2(long price) {
		return price >= 10000 && price < 1000000 ? 1 : 0;
	}

	private static long rank3(long price) {
		return price >= 1000000 ? 1 : 0;
	}

	// ------------------------------------------------------------------ the queries

	/** The topology of query `q` reading the topics prefix-*, writing `out`. */
	static Topology build(StreamsBuilder b, String q, String prefix, String out) {
		switch (q) {
		case "q0" -> b.stream(prefix + "-bid", Consumed.with(KEY, NexmarkJson.checkedBid()))
				.peek(Main::input)
				.peek(Main::output)
				.to(out, Produced.with(Serdes.String(), Serdes.ByteArray()));
		case "q1" -> sink(bids(b, prefix).mapValues(x -> new Q1(x.auction(), x.bidder(), 0.908 * (double) x.price(),
				x.dateTime(), x.extra())), out, Q1.class);
		case "q2" -> sink(bids(b, prefix).filter((k, x) -> x.auction() % 123 == 0)
				.mapValues(x -> new Q2(x.auction(), x.price())), out, Q2.class);
		case "q3" -> q3(b, prefix, out);
		case "q4" -> q4(b, prefix, out);
		case "q5" -> q5(b, prefix, out);
		case "q7" -> q7(b, prefix, out);
		case "q8" -> q8(b, prefix, out);
		case "q9" -> q9(b, prefix, out);
		case "q10" -> sink(bids(b, prefix).mapValues(x -> new Q10(x.auction(), x.bidder(), x.price(), x.dateTime(),
				x.extra(), day(x.dateTime()), hourMinute(x.dateTime()))), out, Q10.class);
		case "q11" -> q11(b, prefix, out);
		case "q13" -> q13(b, prefix, out);
		case "q14" -> q14(b, prefix, out);
		case "q15" -> q15(b, prefix, out);
		case "q16" -> q16(b, prefix, out);
		case "q17" -> q17(b, prefix, out);
		case "q18" -> sink(groupBy(bids(b, prefix), "last_bids", Bid.class,
				(k, x) -> x.bidder() + "/" + x.auction())
				.reduce((a, x) -> x.dateTime() >= a.dateTime() ? x : a, store("last_bids", Bid.class))
				.toStream(), out, Bid.class);
		case "q19" -> q19(b, prefix, out);
		case "q20" -> q20(b, prefix, out);
		case "q21" -> q21(b, prefix, out);
		case "q22" -> sink(bids(b, prefix).mapValues(x -> {
			List<String> parts = split(x.url(), '/');
			return new Q22(x.auction(), x.bidder(), x.price(), x.channel(), parts.size() > 3 ? parts.get(3) : null,
					parts.size() > 4 ? parts.get(4) : null, parts.size() > 5 ? parts.get(5) : null);
		}), out, Q22.class);
		case "q23" -> q23(b, prefix, out);
		default -> throw new IllegalArgumentException("unknown Nexmark query " + q);
		}
		return b.build();
	}

	/* q3: category-10 auctions (a table of their own) foreign-key joined with OR/ID/CA persons. */
	private static void q3(StreamsBuilder b, String prefix, String out) {
		KTable<String, Person> persons = table(b, prefix + "-person", "persons", Person.class);
		KTable<String, Auction> local = auctions(b, prefix).filter((k, a) -> a.category() == 10)
				.toTable(store("local_auctions", Auction.class));
		KTable<String, Q3> q3 = local.join(
				persons.filter((k, p) -> p.state().equals("OR") || p.state().equals("ID") || p.state().equals("CA")),
				a -> Long.toString(a.seller()),
				(a, p) -> new Q3(p.name(), p.city(), p.state(), a.id()), store("q3", Q3.class));
		sink(q3.toStream(), out, Q3.class);
	}

	/* q4: bids joined with their auction while it is open, the highest per auction, averaged per category. */
	private static void q4(StreamsBuilder b, String prefix, String out) {
		KTable<String, Auction> auctions = table(b, prefix + "-auction", "auctions", Auction.class);
		KTable<String, Winning> winning = bids(b, prefix)
				.join(auctions, BidAuction::new, Joined.with(KEY, json(Bid.class), json(Auction.class)))
				.filter((k, x) -> x.bid().dateTime() >= x.a().dateTime() && x.bid().dateTime() <= x.a().expires())
				.mapValues(x -> new Winning(x.a().category(), x.bid().price()))
				.groupByKey(Grouped.with(KEY, json(Winning.class)))
				.reduce((w, x) -> new Winning(x.category(), Math.max(w.price(), x.price())),
						store("winning", Winning.class));
		KTable<String, Sum> perCategory = winning
				.groupBy((k, w) -> KeyValue.pair(Long.toString(w.category()), w.price()),
						Grouped.with(NexmarkJson.countedKey(Main.REPARTITIONED), Serdes.Long()))
				.aggregate(() -> new Sum(0, 0), (k, p, acc) -> new Sum(acc.n() + 1, acc.total() + p),
						(k, p, acc) -> new Sum(acc.n() - 1, acc.total() - p), store("per_category", Sum.class));
		sink(perCategory.mapValues((k, s) -> new Q4(Long.parseLong(k), s.n() == 0 ? 0 : s.total() / s.n()))
				.toStream(), out, Q4.class);
	}

	/* q5: hopping-window counts per auction (emit final), the largest per window and its auctions. */
	private static void q5(StreamsBuilder b, String prefix, String out) {
		KTable<String, Q5> hot = bids(b, prefix)
				.groupByKey(Grouped.with(KEY, json(Bid.class)))
				.windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofSeconds(10), Duration.ZERO)
						.advanceBy(Duration.ofSeconds(2)))
				.emitStrategy(EmitStrategy.onWindowClose())
				.count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("auction_bids")
						.withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
				.toStream()
				.map((k, n) -> KeyValue.pair(Long.toString(k.window().start()),
						new AuctionCount(Long.parseLong(k.key()), n, k.window().start(), k.window().end())))
				.repartition(Repartitioned.<String, AuctionCount>as("hot").withKeySerde(KEY)
						.withValueSerde(json(AuctionCount.class)))
				.peek((k, v) -> Main.REPARTITIONED.increment())
				.groupByKey(Grouped.with(KEY, json(AuctionCount.class)))
				.aggregate(() -> new Q5(0, 0, 0, ""), (k, c, acc) -> {
					if (c.num() > acc.maxn())
						return new Q5(c.starttime(), c.endtime(), c.num(), Long.toString(c.auction()));
					if (c.num() == acc.maxn())
						return new Q5(acc.starttime(), acc.endtime(), acc.maxn(), acc.auctions() + "," + c.auction());
					return acc;
				}, store("hot", Q5.class));
		sink(hot.toStream(), out, Q5.class);
	}

	/*
	 * q7 in two stages (bench/nexmark/queries/q7.stoat): per auction, without a repartition, a 10 s
	 * tumbling window (emit final, grace 0) of the highest price and its bids; each closed window's
	 * result re-keyed by the window's start and merged in a table.
	 */
	private static void q7(StreamsBuilder b, String prefix, String out) {
		KTable<String, Q7> highest = bids(b, prefix)
				.groupByKey(Grouped.with(KEY, json(Bid.class)))
				.windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofSeconds(10), Duration.ZERO))
				.emitStrategy(EmitStrategy.onWindowClose())
				.aggregate(() -> new Highest(-1, ""), (k, x, acc) -> {
					String one = x.auction() + "," + x.bidder() + "," + x.dateTime() + "," + x.extra();
					if (x.price() > acc.price())
						return new Highest(x.price(), one);
					if (x.price() == acc.price())
						return new Highest(acc.price(), acc.bids() + "|" + one);
					return acc;
				}, Materialized.<String, Highest, WindowStore<Bytes, byte[]>>as("per_auction")
						.withKeySerde(Serdes.String()).withValueSerde(json(Highest.class)))
				.toStream()
				.map((k, h) -> KeyValue.pair(Long.toString(k.window().start()),
						new Q7(k.window().start(), h.price(), h.bids())))
				.repartition(Repartitioned.<String, Q7>as("highest").withKeySerde(KEY)
						.withValueSerde(json(Q7.class)))
				.peek((k, v) -> Main.REPARTITIONED.increment())
				.groupByKey(Grouped.with(KEY, json(Q7.class)))
				.aggregate(() -> new Q7(0, -1, ""), (k, w, acc) -> {
					if (w.price() > acc.price())
						return w;
					if (w.price() == acc.price())
						return new Q7(acc.starttime(), acc.price(), acc.bids() + "|" + w.bids());
					return acc;
				}, store("highest", Q7.class));
		sink(highest.toStream(), out, Q7.class);
	}

	/* q8: persons and auctions cogrouped by (person, 10 s window start). */
	private static void q8(StreamsBuilder b, String prefix, String out) {
		KGroupedStream<String, Person> p = groupBy(persons(b, prefix), "persons-by-window", Person.class,
				(k, x) -> x.id() + "/" + (x.dateTime() - x.dateTime() % 10000));
		KGroupedStream<String, Auction> a = groupBy(auctions(b, prefix), "auctions-by-window", Auction.class,
				(k, x) -> x.seller() + "/" + (x.dateTime() - x.dateTime() % 10000));
		KTable<String, Seen> seen = p
				.<Seen>cogroup((k, x, acc) -> new Seen(x.id(), x.name(), true, acc.auctions(),
						x.dateTime() - x.dateTime() % 10000))
				.cogroup(a, (k, x, acc) -> new Seen(x.seller(), acc.name(), acc.registered(), acc.auctions() + 1,
						x.dateTime() - x.dateTime() % 10000))
				.aggregate(() -> new Seen(0, "", false, 0, 0), store("seen", Seen.class));
		sink(seen.filter((k, s) -> s.registered() && s.auctions() > 0)
				.mapValues(s -> new Q8(s.id(), s.name(), s.starttime()))
				.toStream(), out, Q8.class);
	}

	/* q9: each auction's highest bid made while it was open (of equal prices the earlier). */
	private static void q9(StreamsBuilder b, String prefix, String out) {
		KTable<String, Auction> auctions = table(b, prefix + "-auction", "auctions", Auction.class);
		KTable<String, Q9> winning = bids(b, prefix)
				.join(auctions, (x, a) -> new Q9(a.id(), a.itemName(), a.description(), a.initialBid(), a.reserve(),
						a.dateTime(), a.expires(), a.seller(), a.category(), a.extra(), x.auction(), x.bidder(),
						x.price(), x.dateTime(), x.extra()), Joined.with(KEY, json(Bid.class), json(Auction.class)))
				.filter((k, w) -> w.bid_dateTime() >= w.dateTime() && w.bid_dateTime() <= w.expires())
				.groupByKey(Grouped.with(KEY, json(Q9.class)))
				.reduce((w, x) -> x.price() > w.price() || (x.price() == w.price() && x.bid_dateTime() < w.bid_dateTime())
						? x : w, store("winning", Q9.class));
		sink(winning.toStream(), out, Q9.class);
	}

	/*
	 * q11: session-window (gap 10 s, grace 0, emit final) bid counts per bidder, over the bids keyed by
	 * bidder (prefix-bid-bidder: no repartition before the window, bench/nexmark/queries/q11.stoat).
	 */
	private static void q11(StreamsBuilder b, String prefix, String out) {
		KStream<String, Q11> q11 = b.stream(prefix + "-bid-bidder", Consumed.with(KEY, json(Bid.class)))
				.peek(Main::input)
				.groupByKey(Grouped.with(KEY, json(Bid.class)))
				.windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(10), Duration.ZERO))
				.emitStrategy(EmitStrategy.onWindowClose())
				.count(Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("sessions")
						.withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
				.toStream()
				.filter((k, n) -> n != null)
				.map((k, n) -> KeyValue.pair(k.key(), new Q11(Long.parseLong(k.key()), n, k.window().start(),
						k.window().end())));
		sink(q11, out, Q11.class);
	}

	/* q13: each bid with the side input's value for auction % 10000 (a global table). */
	private static void q13(StreamsBuilder b, String prefix, String out) {
		GlobalKTable<String, String> side = b.globalTable(prefix + "-side", Consumed.with(KEY, sideString()),
				Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(SIDE_STORE)
						.withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
		sink(bids(b, prefix).join(side, (k, x) -> Long.toString(x.auction() % 10000),
				(x, s) -> new Q13(x.auction(), x.bidder(), x.price(), x.dateTime(), s)), out, Q13.class);
	}

	/* q14: bids priced between 1M and 50M euros, with the time of day and the count of 'c's in extra. */
	private static void q14(StreamsBuilder b, String prefix, String out) {
		sink(bids(b, prefix)
				.filter((k, x) -> 0.908 * (double) x.price() > 1000000.0 && 0.908 * (double) x.price() < 50000000.0)
				.mapValues(x -> {
					int h = hour(x.dateTime());
					String type = h >= 8 && h <= 18 ? "dayTime" : h <= 6 || h >= 20 ? "nightTime" : "otherTime";
					return new Q14(x.auction(), x.bidder(), 0.908 * (double) x.price(), type, x.dateTime(), x.extra(),
							count(x.extra(), 'c'));
				}), out, Q14.class);
	}

	/* A Ranks with one more bid of `price` in it (q15's per-day, per-bidder and per-auction aggregates). */
	private static Ranks addBid(String day, long price, Ranks acc) {
		return new Ranks(day, acc.n() + 1, acc.n1() + rank1(price), acc.n2() + rank2(price),
				acc.n3() + rank3(price));
	}

	/* q15's distinct counts: one more (sign 1) or one less (-1) group r of the day. */
	private static Ranks addGroup(Ranks r, Ranks acc, int sign) {
		return new Ranks(r.day(), acc.n() + sign, acc.n1() + sign * (r.n1() > 0 ? 1 : 0),
				acc.n2() + sign * (r.n2() > 0 ? 1 : 0), acc.n3() + sign * (r.n3() > 0 ? 1 : 0));
	}

	/* q15's per-day distinct count of the groups of `perGroup` (a table re-grouped by day). */
	private static KTable<String, Ranks> distinctPerDay(KTable<String, Ranks> perGroup, String name) {
		return perGroup.groupBy((k, r) -> KeyValue.pair(r.day(), r),
						Grouped.with(NexmarkJson.countedKey(Main.REPARTITIONED), json(Ranks.class)))
				.aggregate(() -> new Ranks("", 0, 0, 0, 0), (k, r, acc) -> addGroup(r, acc, 1),
						(k, r, acc) -> addGroup(r, acc, -1), store(name, Ranks.class));
	}

	/* q15: bidding statistics per day, count(distinct) as two-stage aggregates joined by day. */
	private static void q15(StreamsBuilder b, String prefix, String out) {
		KStream<String, Dated15> dated = bids(b, prefix)
				.mapValues(x -> new Dated15(day(x.dateTime()), x.bidder(), x.auction(), x.price()));
		Ranks zero = new Ranks("", 0, 0, 0, 0);
		KTable<String, Ranks> bidCounts = groupBy(dated, "bid_counts", Dated15.class, (k, d) -> d.day())
				.aggregate(() -> zero, (k, d, acc) -> addBid(d.day(), d.price(), acc), store("bid_counts", Ranks.class));
		KTable<String, Ranks> perBidder = groupBy(dated, "per_bidder", Dated15.class, (k, d) -> d.day() + "/" + d.bidder())
				.aggregate(() -> zero, (k, d, acc) -> addBid(d.day(), d.price(), acc), store("per_bidder", Ranks.class));
		KTable<String, Ranks> perAuction = groupBy(dated, "per_auction", Dated15.class,
				(k, d) -> d.day() + "/" + d.auction())
				.aggregate(() -> zero, (k, d, acc) -> addBid(d.day(), d.price(), acc), store("per_auction", Ranks.class));
		KTable<String, Ranks> bidders = distinctPerDay(perBidder, "bidders");
		KTable<String, Ranks> auctions = distinctPerDay(perAuction, "auctions");
		KTable<String, Q15> q15 = bidCounts.join(bidders, Joined15::new)
				.join(auctions, (x, a) -> new Q15(x.c().day(), x.c().n(), x.c().n1(), x.c().n2(), x.c().n3(),
						x.b().n(), x.b().n1(), x.b().n2(), x.b().n3(), a.n(), a.n1(), a.n2(), a.n3()));
		sink(q15.toStream(), out, Q15.class);
	}

	private static Ranks16 addBid16(String group, long price, Ranks16 acc) {
		return new Ranks16(group, acc.n() + 1, acc.n1() + rank1(price), acc.n2() + rank2(price),
				acc.n3() + rank3(price));
	}

	private static Ranks16 addGroup16(Ranks16 r, Ranks16 acc, int sign) {
		return new Ranks16(r.group(), acc.n() + sign, acc.n1() + sign * (r.n1() > 0 ? 1 : 0),
				acc.n2() + sign * (r.n2() > 0 ? 1 : 0), acc.n3() + sign * (r.n3() > 0 ? 1 : 0));
	}

	private static KTable<String, Ranks16> distinctPerGroup(KTable<String, Ranks16> perGroup, String name) {
		return perGroup.groupBy((k, r) -> KeyValue.pair(r.group(), r),
						Grouped.with(NexmarkJson.countedKey(Main.REPARTITIONED), json(Ranks16.class)))
				.aggregate(() -> new Ranks16("", 0, 0, 0, 0), (k, r, acc) -> addGroup16(r, acc, 1),
						(k, r, acc) -> addGroup16(r, acc, -1), store(name, Ranks16.class));
	}

	/* q16: q15 per (channel, day), with the latest minute. */
	private static void q16(StreamsBuilder b, String prefix, String out) {
		KStream<String, Dated16> dated = bids(b, prefix).mapValues(x -> {
			String d = day(x.dateTime());
			return new Dated16(x.channel() + "/" + d, x.channel(), d, hourMinute(x.dateTime()), x.bidder(),
					x.auction(), x.price());
		});
		KTable<String, Counts16> bidCounts = groupBy(dated, "bid_counts", Dated16.class, (k, d) -> d.group())
				.aggregate(() -> new Counts16("", "", "", 0, 0, 0, 0),
						(k, d, acc) -> new Counts16(d.channel(), d.day(),
								d.minute().compareTo(acc.minute()) > 0 ? d.minute() : acc.minute(), acc.n() + 1,
								acc.n1() + rank1(d.price()), acc.n2() + rank2(d.price()), acc.n3() + rank3(d.price())),
						store("bid_counts", Counts16.class));
		Ranks16 zero = new Ranks16("", 0, 0, 0, 0);
		KTable<String, Ranks16> perBidder = groupBy(dated, "per_bidder", Dated16.class,
				(k, d) -> d.group() + "/" + d.bidder())
				.aggregate(() -> zero, (k, d, acc) -> addBid16(d.group(), d.price(), acc),
						store("per_bidder", Ranks16.class));
		KTable<String, Ranks16> perAuction = groupBy(dated, "per_auction", Dated16.class,
				(k, d) -> d.group() + "/" + d.auction())
				.aggregate(() -> zero, (k, d, acc) -> addBid16(d.group(), d.price(), acc),
						store("per_auction", Ranks16.class));
		KTable<String, Ranks16> bidders = distinctPerGroup(perBidder, "bidders");
		KTable<String, Ranks16> auctions = distinctPerGroup(perAuction, "auctions");
		KTable<String, Q16> q16 = bidCounts.join(bidders, Joined16::new)
				.join(auctions, (x, a) -> new Q16(x.c().channel(), x.c().day(), x.c().minute(), x.c().n(), x.c().n1(),
						x.c().n2(), x.c().n3(), x.b().n(), x.b().n1(), x.b().n2(), x.b().n3(), a.n(), a.n1(), a.n2(),
						a.n3()));
		sink(q16.toStream(), out, Q16.class);
	}

	/* q17: auction statistics per (auction, day). */
	private static void q17(StreamsBuilder b, String prefix, String out) {
		KTable<String, Stats> stats = groupBy(bids(b, prefix), "stats", Bid.class,
				(k, x) -> x.auction() + "/" + day(x.dateTime()))
				.aggregate(() -> new Stats(0, "", 0, 0, 0, 0, Long.MAX_VALUE, Long.MIN_VALUE, 0),
						(k, x, acc) -> new Stats(x.auction(), day(x.dateTime()), acc.total_bids() + 1,
								acc.rank1_bids() + rank1(x.price()), acc.rank2_bids() + rank2(x.price()),
								acc.rank3_bids() + rank3(x.price()), Math.min(acc.min_price(), x.price()),
								Math.max(acc.max_price(), x.price()), acc.sum_price() + x.price()),
						store("stats", Stats.class));
		sink(stats.mapValues(s -> new Q17(s.auction(), s.day(), s.total_bids(), s.rank1_bids(), s.rank2_bids(),
				s.rank3_bids(), s.min_price(), s.max_price(), s.sum_price() / s.total_bids(), s.sum_price()))
				.toStream(), out, Q17.class);
	}

	/* q19: the 10 highest bids per auction (earlier first among equal prices), ranked. */
	private static void q19(StreamsBuilder b, String prefix, String out) {
		KTable<String, Top> top = bids(b, prefix)
				.groupByKey(Grouped.with(KEY, json(Bid.class)))
				.aggregate(() -> new Top(List.of()), (k, x, acc) -> {
					// q19.stoat's insertion: after the k bids priced >= x, at most 10 in all
					int at = 0;
					for (Bid y : acc.bids())
						if (y.price() >= x.price())
							at++;
					List<Bid> bids = new ArrayList<>(acc.bids());
					if (at < 10)
						bids.add(at, x);
					return new Top(bids.size() > 10 ? bids.subList(0, 10) : bids);
				}, store("top", Top.class));
		sink(top.mapValues(t -> {
			List<Ranked> ranked = new ArrayList<>();
			for (int i = 0; i < t.bids().size(); i++) {
				Bid x = t.bids().get(i);
				ranked.add(new Ranked(x.auction(), x.bidder(), x.price(), x.channel(), x.url(), x.dateTime(), x.extra(),
						i + 1));
			}
			return new Q19(ranked);
		}).toStream(), out, Q19.class);
	}

	/* q20: bids joined with their auction when it is of category 10 (a table of its own). */
	private static void q20(StreamsBuilder b, String prefix, String out) {
		KTable<String, Auction> category10 = auctions(b, prefix).filter((k, a) -> a.category() == 10)
				.toTable(store("category10", Auction.class));
		sink(bids(b, prefix).join(category10, (x, a) -> new Q20(x.auction(), x.bidder(), x.price(), x.channel(),
				x.url(), x.dateTime(), x.extra(), a.itemName(), a.description(), a.initialBid(), a.reserve(),
				a.dateTime(), a.expires(), a.seller(), a.category(), a.extra()),
				Joined.with(KEY, json(Bid.class), json(Auction.class))), out, Q20.class);
	}

	private static final Map<String, String> CHANNEL_IDS = Map.of("apple", "0", "google", "1", "facebook", "2",
			"baidu", "3");

	/* q21's first map_values: the bid, its lower-case channel, and the url's channel_id (or null). */
	private record Channel(Bid b, String c, String id) {
	}

	/* q21: the channel id of the known channels, or the url's channel_id parameter. */
	private static void q21(StreamsBuilder b, String prefix, String out) {
		KStream<String, Q21> q21 = bids(b, prefix).mapValues(x -> {
			String url = x.url();
			int at;
			if (url.startsWith("channel_id="))
				at = 11;
			else {
				int i = url.indexOf("&channel_id=");
				at = i < 0 ? -1 : i + 12;
			}
			String id = null;
			if (at >= 0) {
				int end = url.indexOf('&', at);
				id = end < 0 ? url.substring(at) : url.substring(at, end);
			}
			return new Channel(x, Text.lower(x.channel()), id);
		})
				.filter((k, x) -> x.id() != null || CHANNEL_IDS.containsKey(x.c()))
				.mapValues(x -> new Q21(x.b().auction(), x.b().bidder(), x.b().price(), x.b().channel(),
						CHANNEL_IDS.getOrDefault(x.c(), x.id() != null ? x.id() : "")));
		sink(q21, out, Q21.class);
	}

	/* q23: bids joined with their bidder's person, then with every auction that person sells. */
	private static void q23(StreamsBuilder b, String prefix, String out) {
		Duration century = Duration.ofDays(36500);
		KStream<String, Auction> bySeller = rekey(auctions(b, prefix), "by_seller", Auction.class,
				(k, a) -> Long.toString(a.seller()));
		KStream<String, Q23> q23 = rekey(bids(b, prefix), "bids-by-bidder", Bid.class, (k, x) -> Long.toString(x.bidder()))
				.join(persons(b, prefix), BidPerson::new, JoinWindows.ofTimeDifferenceAndGrace(century, Duration.ZERO),
						StreamJoined.with(KEY, json(Bid.class), json(Person.class)).withStoreName("bids_persons"))
				.join(bySeller, (x, a) -> new Q23(x.b().bidder(), x.b().price(), x.b().channel(), x.b().url(),
						x.b().extra(), x.p().id(), x.p().name(), x.p().emailAddress(), x.p().creditCard(), x.p().city(),
						x.p().state(), x.p().extra(), a.itemName(), a.description(), a.initialBid(), a.reserve(),
						a.dateTime(), a.expires(), a.seller(), a.category(), a.extra()),
						JoinWindows.ofTimeDifferenceAndGrace(century, Duration.ZERO),
						StreamJoined.with(KEY, json(BidPerson.class), json(Auction.class))
								.withStoreName("bidpersons_auctions"));
		sink(q23, out, Q23.class);
	}

	/*
	 * q13's side values (Kafka's StringSerde, null for a tombstone) counting the records the global
	 * thread reads after start-up as input. The global store uses this serde too (the Consumed one),
	 * and the joins' lookups from the stream thread through it are not input.
	 */
	private static Serde<String> sideString() {
		Deserializer<String> d = new StringDeserializer() {
			@Override
			public String deserialize(String topic, byte[] data) {
				if (Thread.currentThread().getName().contains("GlobalStreamThread"))
					Main.IN.increment();
				return super.deserialize(topic, data);
			}
		};
		return Serdes.serdeFrom(new StringSerializer(), d);
	}

	/**
	 * Counts q13's side input as input: a global table's records present at start-up are restored
	 * into its store (not through its deserializer), so they are counted here.
	 */
	static StateRestoreListener sideRestoreCounter() {
		return new StateRestoreListener() {
			@Override
			public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
			}

			@Override
			public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {
				if (store.equals(SIDE_STORE))
					Main.IN.add(n);
			}

			@Override
			public void onRestoreEnd(TopicPartition tp, String store, long total) {
			}
		};
	}
}

package stoat.bench.flink;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Nexmark queries in Flink SQL: the reference text (nexmark/nexmark, nexmark-flink
 * queries/qN.sql), changed only where the source tables or the sink call for it (README.md):
 * `dateTime` is the generator's BIGINT of epoch milliseconds (so that the output equals stoat's),
 * event time is the computed column event_time over it; window bounds are written as MILLIS(...);
 * every query selects the record key k first, through MARK; the results have the field names of
 * the stoat query's output (bench/nexmark/queries/qN.stoat).
 */
final class Queries {
	private Queries() {
	}

	private static final List<String> BID = List.of("bid");

	/* The bid's columns, and their sink columns, as the queries that pass bids through write them. */
	private static final String BID_COLUMNS = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, "
			+ "url STRING, `dateTime` BIGINT, extra STRING";

	/* q15's and q16's counts of bids, bidders and auctions in the three price ranks. */
	private static final String RANK_COLUMNS = "total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT, "
			+ "rank3_bids BIGINT, total_bidders BIGINT, rank1_bidders BIGINT, rank2_bidders BIGINT, "
			+ "rank3_bidders BIGINT, total_auctions BIGINT, rank1_auctions BIGINT, rank2_auctions BIGINT, "
			+ "rank3_auctions BIGINT";
	private static final String RANKS = """
			count(*) AS total_bids,
			count(*) filter (where price < 10000) AS rank1_bids,
			count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
			count(*) filter (where price >= 1000000) AS rank3_bids,
			count(distinct bidder) AS total_bidders,
			count(distinct bidder) filter (where price < 10000) AS rank1_bidders,
			count(distinct bidder) filter (where price >= 10000 and price < 1000000) AS rank2_bidders,
			count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders,
			count(distinct auction) AS total_auctions,
			count(distinct auction) filter (where price < 10000) AS rank1_auctions,
			count(distinct auction) filter (where price >= 10000 and price < 1000000) AS rank2_auctions,
			count(distinct auction) filter (where price >= 1000000) AS rank3_auctions
			""";

	/* The record timestamp of a stateless query's output: the bid's, as stoat keeps it. */
	private static final String STAMP = "TO_TIMESTAMP_LTZ(`dateTime`, 3)";

	/*
	 * KEYED_BY_K: an updating query whose result is keyed by (auction, day), say, is grouped by
	 * the sink's key k = "auction/day" instead, and auction and day are read back from k. The same
	 * groups; but the planner sees that k is the result's unique key (it cannot see through a cast
	 * or a concatenation after the aggregation), and upsert-kafka then gets upserts only, no
	 * update-before row per change (which it writes as a tombstone before the new value).
	 */

	static final Map<String, Query> ALL = new TreeMap<>();

	static {
		ALL.put("q0", new Query(BID, false, true, "k STRING, " + BID_COLUMNS, """
				SELECT MARK(CAST(auction AS STRING)), auction, bidder, price, channel, url, `dateTime`, extra, %s
				FROM bid""".formatted(STAMP)));

		ALL.put("q1", new Query(BID, false, true,
				"k STRING, auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), `dateTime` BIGINT, extra STRING", """
				SELECT MARK(CAST(auction AS STRING)), auction, bidder,
				    0.908 * price as price, -- convert dollar to euro
				    `dateTime`, extra, %s
				FROM bid""".formatted(STAMP)));

		ALL.put("q2", new Query(BID, false, true, "k STRING, auction BIGINT, price BIGINT", """
				SELECT MARK(CAST(auction AS STRING)), auction, price, %s FROM bid WHERE MOD(auction, 123) = 0"""
				.formatted(STAMP)));

		// The SQL's regular join: a table keyed by auction id (one row per auction, as the
		// generator never updates a person or an auction).
		ALL.put("q3", new Query(List.of("person", "auction"), true, false,
				"k STRING, name STRING, city STRING, state STRING, id BIGINT", """
				SELECT CAST(A.id AS STRING), MARK(P.name), P.city, P.state, A.id
				FROM auction AS A INNER JOIN person AS P on A.seller = P.id
				WHERE A.category = 10 and (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')"""));

		// Keyed by category; the columns are stoat's Q4 { id, final } (the reference's sink too).
		// Grouped by the key k, the category's decimal text (KEYED_BY_K), and id read back from it.
		ALL.put("q4", new Query(List.of("auction", "bid"), true, false, "k STRING, id BIGINT, final BIGINT", """
				SELECT k, MARK(CAST(k AS BIGINT)), AVG(final)
				FROM (
				  SELECT CAST(Q.category AS STRING) AS k, Q.final
				  FROM (
				    SELECT MAX(B.price) AS final, A.category
				    FROM auction A, bid B
				    WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
				    GROUP BY A.id, A.category
				  ) Q
				)
				GROUP BY k"""));

		// The SQL's rows (auction, num) of a window are gathered into stoat's form, one row per
		// window keyed by its start: the largest count and the auctions that have it.
		ALL.put("q5", new Query(BID, true, false,
				"k STRING, starttime BIGINT, endtime BIGINT, maxn BIGINT, auctions STRING", """
				SELECT CAST(MILLIS(starttime) AS STRING), MARK(MILLIS(starttime)), MILLIS(endtime), MAX(num),
				    LISTAGG(CAST(auction AS STRING))
				FROM (
				 SELECT AuctionBids.auction, AuctionBids.num, AuctionBids.starttime, AuctionBids.endtime
				 FROM (
				   SELECT
				     auction,
				     count(*) AS num,
				     window_start AS starttime,
				     window_end AS endtime
				     FROM TABLE(
				             HOP(TABLE bid, DESCRIPTOR(event_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
				     GROUP BY auction, window_start, window_end
				 ) AS AuctionBids
				 JOIN (
				   SELECT
				     max(CountBids.num) AS maxn,
				     CountBids.starttime,
				     CountBids.endtime
				   FROM (
				     SELECT
				       count(*) AS num,
				       window_start AS starttime,
				       window_end AS endtime
				     FROM TABLE(
				                HOP(TABLE bid, DESCRIPTOR(event_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
				     GROUP BY auction, window_start, window_end
				     ) AS CountBids
				   GROUP BY CountBids.starttime, CountBids.endtime
				 ) AS MaxBids
				 ON AuctionBids.starttime = MaxBids.starttime AND
				    AuctionBids.endtime = MaxBids.endtime AND
				    AuctionBids.num >= MaxBids.maxn
				)
				GROUP BY starttime, endtime"""));

		// B.dateTime BETWEEN window_end - 10 s AND window_end, in milliseconds.
		ALL.put("q7", new Query(BID, false, false,
				"k STRING, auction BIGINT, price BIGINT, bidder BIGINT, `dateTime` BIGINT, extra STRING", """
				SELECT MARK(CAST(B.auction AS STRING)), B.auction, B.price, B.bidder, B.`dateTime`, B.extra
				from bid B
				JOIN (
				  SELECT MAX(price) AS maxprice, window_end as `dateTime`
				  FROM TABLE(
				          TUMBLE(TABLE bid, DESCRIPTOR(event_time), INTERVAL '10' SECOND))
				  GROUP BY window_start, window_end
				) B1
				ON B.price = B1.maxprice
				WHERE B.`dateTime` BETWEEN MILLIS(B1.`dateTime`) - 10000 AND MILLIS(B1.`dateTime`)"""));

		// Keyed as stoat's table: "person id/window start".
		ALL.put("q8", new Query(List.of("person", "auction"), true, false,
				"k STRING, id BIGINT, name STRING, stime BIGINT", """
				SELECT CAST(P.id AS STRING) || '/' || CAST(MILLIS(P.starttime) AS STRING),
				    MARK(P.id), P.name, MILLIS(P.starttime)
				FROM (
				  SELECT id, name,
				        window_start AS starttime,
				        window_end AS endtime
				  FROM TABLE(
				            TUMBLE(TABLE person, DESCRIPTOR(event_time), INTERVAL '10' SECOND))
				  GROUP BY id, name, window_start, window_end
				) P
				JOIN (
				  SELECT seller,
				        window_start AS starttime,
				        window_end AS endtime
				  FROM TABLE(
				        TUMBLE(TABLE auction, DESCRIPTOR(event_time), INTERVAL '10' SECOND))
				  GROUP BY seller, window_start, window_end
				) A
				ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime"""));

		// A.* spelt out: the table's A.* would include the computed event_time.
		ALL.put("q9", new Query(List.of("auction", "bid"), true, false,
				"k STRING, id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, "
						+ "`dateTime` BIGINT, expires BIGINT, seller BIGINT, category BIGINT, extra STRING, "
						+ "auction BIGINT, bidder BIGINT, price BIGINT, bid_dateTime BIGINT, bid_extra STRING", """
				SELECT
				    CAST(id AS STRING),
				    MARK(id), itemName, description, initialBid, reserve, `dateTime`, expires, seller, category, extra,
				    auction, bidder, price, bid_dateTime, bid_extra
				FROM (
				   SELECT A.id, A.itemName, A.description, A.initialBid, A.reserve, A.`dateTime`, A.expires,
				     A.seller, A.category, A.extra,
				     B.auction, B.bidder, B.price, B.`dateTime` AS bid_dateTime, B.extra AS bid_extra,
				     ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.`dateTime` ASC) AS rownum
				   FROM auction A, bid B
				   WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
				)
				WHERE rownum <= 1"""));

		// To a topic, as stoat's: dt and hm are fields (the reference's file sink partitions by them).
		ALL.put("q10", new Query(BID, false, true,
				"k STRING, auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` BIGINT, extra STRING, "
						+ "dt STRING, hm STRING", """
				SELECT MARK(CAST(auction AS STRING)), auction, bidder, price, `dateTime`, extra,
				    DATE_FORMAT(event_time, 'yyyy-MM-dd'), DATE_FORMAT(event_time, 'HH:mm'), %s
				FROM bid""".formatted(STAMP)));

		ALL.put("q11", new Query(BID, false, false,
				"k STRING, bidder BIGINT, bid_count BIGINT, starttime BIGINT, endtime BIGINT", """
				SELECT
				    MARK(CAST(B.bidder AS STRING)),
				    B.bidder,
				    count(*) as bid_count,
				    MILLIS(SESSION_START(B.event_time, INTERVAL '10' SECOND)) as starttime,
				    MILLIS(SESSION_END(B.event_time, INTERVAL '10' SECOND)) as endtime
				FROM bid B
				GROUP BY B.bidder, SESSION(B.event_time, INTERVAL '10' SECOND)"""));

		// The side input is the topic PREFIX-side (keys "0" to "9999", text values), as stoat's q13:
		// Flink's Kafka tables have no lookup, so the SQL's processing-time lookup join becomes an
		// event-time temporal join on a versioned table whose rows all have time 0 (Main.sourceDdl):
		// every bid sees the whole side input, as stoat's global table loaded before the bids.
		ALL.put("q13", new Query(List.of("side", "bid"), false, true,
				"k STRING, auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` BIGINT, `value` STRING", """
				SELECT
				    MARK(CAST(B.auction AS STRING)),
				    B.auction,
				    B.bidder,
				    B.price,
				    B.`dateTime`,
				    S.`value`,
				    TO_TIMESTAMP_LTZ(B.`dateTime`, 3)
				FROM bid B
				JOIN side_input FOR SYSTEM_TIME AS OF B.event_time AS S
				ON CAST(mod(B.auction, 10000) AS STRING) = S.key"""));

		ALL.put("q14", new Query(BID, false, true,
				"k STRING, auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), bidTimeType STRING, "
						+ "`dateTime` BIGINT, extra STRING, c_counts BIGINT", """
				SELECT
				    MARK(CAST(auction AS STRING)),
				    auction,
				    bidder,
				    0.908 * price as price,
				    CASE
				        WHEN HOUR(event_time) >= 8 AND HOUR(event_time) <= 18 THEN 'dayTime'
				        WHEN HOUR(event_time) <= 6 OR HOUR(event_time) >= 20 THEN 'nightTime'
				        ELSE 'otherTime'
				    END AS bidTimeType,
				    `dateTime`,
				    extra,
				    count_char(extra, 'c') AS c_counts,
				    %s
				FROM bid
				WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000""".formatted(STAMP)));

		ALL.put("q15", new Query(BID, true, false, "k STRING, `day` STRING, " + RANK_COLUMNS, """
				SELECT
				     DATE_FORMAT(event_time, 'yyyy-MM-dd'),
				     MARK(DATE_FORMAT(event_time, 'yyyy-MM-dd')) as `day`,
				%s
				FROM bid
				GROUP BY DATE_FORMAT(event_time, 'yyyy-MM-dd')""".formatted(RANKS)));

		// Grouped by the key "channel/day" (KEYED_BY_K; no channel holds a "/").
		ALL.put("q16", new Query(BID, true, false,
				"k STRING, channel STRING, `day` STRING, `minute` STRING, " + RANK_COLUMNS, """
				SELECT
				    k,
				    MARK(SPLIT_INDEX(k, '/', 0)) AS channel,
				    SPLIT_INDEX(k, '/', 1) as `day`,
				    max(DATE_FORMAT(event_time, 'HH:mm')) as `minute`,
				%s
				FROM (SELECT *, channel || '/' || DATE_FORMAT(event_time, 'yyyy-MM-dd') AS k FROM bid)
				GROUP BY k""".formatted(RANKS)));

		// Grouped by the key "auction/day" (KEYED_BY_K).
		ALL.put("q17", new Query(BID, true, false,
				"k STRING, auction BIGINT, `day` STRING, total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT, "
						+ "rank3_bids BIGINT, min_price BIGINT, max_price BIGINT, avg_price BIGINT, sum_price BIGINT",
				"""
				SELECT
				     k,
				     MARK(CAST(SPLIT_INDEX(k, '/', 0) AS BIGINT)) AS auction,
				     SPLIT_INDEX(k, '/', 1) as `day`,
				     count(*) AS total_bids,
				     count(*) filter (where price < 10000) AS rank1_bids,
				     count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
				     count(*) filter (where price >= 1000000) AS rank3_bids,
				     min(price) AS min_price,
				     max(price) AS max_price,
				     avg(price) AS avg_price,
				     sum(price) AS sum_price
				FROM (SELECT *, CAST(auction AS STRING) || '/' || DATE_FORMAT(event_time, 'yyyy-MM-dd') AS k FROM bid)
				GROUP BY k"""));

		// ORDER BY the event-time attribute (the reference's dateTime): Flink's deduplication,
		// keeping the last row; partitioned by the key, stoat's "bidder/auction" (KEYED_BY_K).
		ALL.put("q18", new Query(BID, true, false, "k STRING, " + BID_COLUMNS, """
				SELECT k, MARK(auction), bidder, price, channel, url, `dateTime`, extra
				 FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY event_time DESC) AS rank_number
				       FROM (SELECT *, CAST(bidder AS STRING) || '/' || CAST(auction AS STRING) AS k FROM bid))
				 WHERE rank_number <= 1"""));

		// The SQL's rows, one per (auction, rank), keyed "auction/rank" (stoat's is one array per
		// auction; reference.py's Flink form spreads it the same way).
		ALL.put("q19", new Query(BID, true, false, "k STRING, " + BID_COLUMNS + ", rank_number BIGINT", """
				SELECT CAST(auction AS STRING) || '/' || CAST(rank_number AS STRING),
				    MARK(auction), bidder, price, channel, url, `dateTime`, extra, rank_number FROM
				(SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid)
				WHERE rank_number <= 10"""));

		ALL.put("q20", new Query(List.of("auction", "bid"), false, true,
				"k STRING, auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
						+ "bid_dateTime BIGINT, bid_extra STRING, itemName STRING, description STRING, "
						+ "initialBid BIGINT, reserve BIGINT, auction_dateTime BIGINT, expires BIGINT, seller BIGINT, "
						+ "category BIGINT, auction_extra STRING", """
				SELECT
				    MARK(CAST(auction AS STRING)),
				    auction, bidder, price, channel, url, B.`dateTime`, B.extra,
				    itemName, description, initialBid, reserve, A.`dateTime`, expires, seller, category, A.extra,
				    TO_TIMESTAMP_LTZ(B.`dateTime`, 3)
				FROM
				    bid AS B INNER JOIN auction AS A on B.auction = A.id
				WHERE A.category = 10"""));

		ALL.put("q21", new Query(BID, false, true,
				"k STRING, auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, channel_id STRING", """
				SELECT
				    MARK(CAST(auction AS STRING)),
				    auction, bidder, price, channel,
				    CASE
				        WHEN lower(channel) = 'apple' THEN '0'
				        WHEN lower(channel) = 'google' THEN '1'
				        WHEN lower(channel) = 'facebook' THEN '2'
				        WHEN lower(channel) = 'baidu' THEN '3'
				        ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2)
				        END
				    AS channel_id, %s FROM bid
				    where REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) is not null or
				          lower(channel) in ('apple', 'google', 'facebook', 'baidu')""".formatted(STAMP)));

		ALL.put("q22", new Query(BID, false, true,
				"k STRING, auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, dir1 STRING, dir2 STRING, "
						+ "dir3 STRING", """
				SELECT
				    MARK(CAST(auction AS STRING)),
				    auction, bidder, price, channel,
				    SPLIT_INDEX(url, '/', 3) as dir1,
				    SPLIT_INDEX(url, '/', 4) as dir2,
				    SPLIT_INDEX(url, '/', 5) as dir3, %s FROM bid""".formatted(STAMP)));

		// Keyed by the bidder, as stoat's (its joins re-key the bids by bidder).
		ALL.put("q23", new Query(List.of("person", "auction", "bid"), false, false,
				"k STRING, bidder BIGINT, price BIGINT, channel STRING, url STRING, bid_extra STRING, "
						+ "person_id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, "
						+ "state STRING, person_extra STRING, itemName STRING, description STRING, initialBid BIGINT, "
						+ "reserve BIGINT, auction_dateTime BIGINT, expires BIGINT, seller BIGINT, category BIGINT, "
						+ "auction_extra STRING", """
				SELECT MARK(CAST(bidder AS STRING)),
				       bidder,
				       price,
				       channel,
				       url,
				       B.extra    AS bid_extra,

				       P.id       AS person_id,
				       name,
				       emailAddress,
				       creditCard,
				       city,
				       state,
				       P.extra    AS person_extra,
				       itemName,

				       description,
				       initialBid,
				       reserve,
				       A.`dateTime` AS auction_dateTime,
				       expires,
				       seller,
				       category,
				       A.extra    AS auction_extra
				FROM bid B
				         JOIN
				     person P ON P.id = B.bidder
				         JOIN
				     auction A ON A.seller = B.bidder"""));
	}
}

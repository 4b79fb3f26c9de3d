package stoat.bench.ks;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The record types of the Nexmark queries (bench/nexmark/queries/qN.stoat's `type`s, with the
 * same field names and order, i64 as long, f64 as double): the generator's Person, Auction and
 * Bid, each query's output, and what its stores hold. NexmarkJson reads and writes them; every
 * field is required when read (a missing or null one is an error, as in stoat's generated reader).
 */
final class NexmarkTypes {
	private NexmarkTypes() {
	}

	record Bid(long auction, long bidder, long price, String channel, String url, long dateTime, String extra) {
	}

	record Person(long id, String name, String emailAddress, String creditCard, String city, String state,
			long dateTime, String extra) {
	}

	record Auction(long id, String itemName, String description, long initialBid, long reserve, long dateTime,
			long expires, long seller, long category, String extra) {
	}

	record Q1(long auction, long bidder, double price, long dateTime, String extra) {
	}

	record Q2(long auction, long price) {
	}

	record Q3(String name, String city, String state, long id) {
	}

	/** q4 and q9: a bid with its auction (the stream-table join's value). */
	record BidAuction(Bid bid, Auction a) {
	}

	record Winning(long category, long price) {
	}

	record Sum(long n, long total) {
	}

	/** q4's output; `final` is a Java keyword, so the component has another name. */
	record Q4(long id, @JsonProperty("final") long finalPrice) {
	}

	record AuctionCount(long auction, long num, long starttime, long endtime) {
	}

	record Q5(long starttime, long endtime, long maxn, String auctions) {
	}

	record Highest(long price, String bids) {
	}

	record Q7(long starttime, long price, String bids) {
	}

	record Seen(long id, String name, boolean registered, long auctions, long starttime) {
	}

	record Q8(long id, String name, long stime) {
	}

	record Q9(long id, String itemName, String description, long initialBid, long reserve, long dateTime,
			long expires, long seller, long category, String extra, long auction, long bidder, long price,
			long bid_dateTime, String bid_extra) {
	}

	record Q10(long auction, long bidder, long price, long dateTime, String extra, String dt, String hm) {
	}

	record Q11(long bidder, long bid_count, long starttime, long endtime) {
	}

	record Q13(long auction, long bidder, long price, long dateTime, String value) {
	}

	record Q14(long auction, long bidder, double price, String bidTimeType, long dateTime, String extra,
			long c_counts) {
	}

	/** q15's dated bid (an anonymous record in q15.stoat). */
	record Dated15(String day, long bidder, long auction, long price) {
	}

	/** q15's counts per group (q15.stoat's Ranks, its `day` field; q16's, its `group`). */
	record Ranks(String day, long n, long n1, long n2, long n3) {
	}

	/** The first table-table join's value in q15 and q16 ({ c: c, b: b } in the stoat files). */
	record Joined15(Ranks c, Ranks b) {
	}

	record Q15(String day, long total_bids, long rank1_bids, long rank2_bids, long rank3_bids,
			long total_bidders, long rank1_bidders, long rank2_bidders, long rank3_bidders, long total_auctions,
			long rank1_auctions, long rank2_auctions, long rank3_auctions) {
	}

	record Dated16(String group, String channel, String day, String minute, long bidder, long auction,
			long price) {
	}

	record Counts16(String channel, String day, String minute, long n, long n1, long n2, long n3) {
	}

	record Ranks16(String group, long n, long n1, long n2, long n3) {
	}

	record Joined16(Counts16 c, Ranks16 b) {
	}

	record Q16(String channel, String day, String minute, long total_bids, long rank1_bids, long rank2_bids,
			long rank3_bids, long total_bidders, long rank1_bidders, long rank2_bidders, long rank3_bidders,
			long total_auctions, long rank1_auctions, long rank2_auctions, long rank3_auctions) {
	}

	record Stats(long auction, String day, long total_bids, long rank1_bids, long rank2_bids, long rank3_bids,
			long min_price, long max_price, long sum_price) {
	}

	record Q17(long auction, String day, long total_bids, long rank1_bids, long rank2_bids, long rank3_bids,
			long min_price, long max_price, long avg_price, long sum_price) {
	}

	record Top(List<Bid> bids) {
	}

	record Ranked(long auction, long bidder, long price, String channel, String url, long dateTime, String extra,
			long rank_number) {
	}

	record Q19(List<Ranked> bids) {
	}

	record Q20(long auction, long bidder, long price, String channel, String url, long bid_dateTime,
			String bid_extra, String itemName, String description, long initialBid, long reserve,
			long auction_dateTime, long expires, long seller, long category, String auction_extra) {
	}

	record Q21(long auction, long bidder, long price, String channel, String channel_id) {
	}

	/** q22's output: dir1..dir3 are nullable (string? in q22.stoat), written as null when absent. */
	record Q22(long auction, long bidder, long price, String channel, String dir1, String dir2, String dir3) {
	}

	record BidPerson(Bid b, Person p) {
	}

	record Q23(long bidder, long price, String channel, String url, String bid_extra, long person_id, String name,
			String emailAddress, String creditCard, String city, String state, String person_extra,
			String itemName, String description, long initialBid, long reserve, long auction_dateTime,
			long expires, long seller, long category, String auction_extra) {
	}
}

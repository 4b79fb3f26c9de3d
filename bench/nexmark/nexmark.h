/*
 * nexmark.h - the Nexmark event generator: Person, Auction and Bid events
 * as the reference generator makes them (nexmark/nexmark's nexmark-flink
 * generator, itself Apache Beam's), deterministic for a seed.
 *
 * The model, read from the reference and kept exactly:
 *
 * - Event i (0, 1, 2, ...) is a person, an auction or a bid by i % 50:
 *   0 a person, 1-3 an auction, 4-49 a bid (the 1:3:46 mix).  Person ids
 *   and auction ids count from 1000, densely, in event order.
 * - Event time: base + floor(i * (1e6 / rate) us) / 1000 ms, so time
 *   advances at `rate` events per second of event time; every event of
 *   one millisecond has the same time (no out-of-order events: the
 *   reference's outOfOrderGroupSize is 1).
 * - Auctions: a hot seller (the first of the last hundred people) with
 *   probability 3/4, else a random one of the last 1000 active people plus
 *   10 ids ahead; category 10-14; initial bid and reserve increment
 *   100 * 10^(6u) rounded (cents); expires after 1 + a uniform draw below
 *   twice the time until 100 auctions later.
 * - Bids: a hot auction (the first of the last hundred) with probability
 *   1/2, else one of the last 100 in flight plus 10 ahead; a hot bidder
 *   (the second of the last hundred people) with probability 3/4; half of
 *   them on one of four hot channels, the rest on one of 10000 channels
 *   with cached urls.  The reference adds the person id base (1000) to a
 *   bid's bidder twice; kept, so bidder ids match the reference's.
 * - Strings: lower-case letters with a space (urls: '_') 1 in 13, trimmed;
 *   `extra` pads each event to its average size (person 200, auction 500,
 *   bid 100, counted the reference's way) +-20%, cut from a 1 MiB string
 *   at a random offset.  That string is built the reference's way, four
 *   letters to an int draw, and like the reference's it holds capital
 *   letters and "[\]^_`" where the draw is negative.
 *
 * The random draws are Java's SplittableRandom (SplitMix64 with the golden
 * gamma), in the reference's order, so a given seed gives the events the
 * reference would give with `new SplittableRandom(seed)` for its event
 * generator.  The reference seeds its 1 MiB string and its url cache
 * from unseeded generators; here they come from seed-derived ones.
 */
#ifndef NEXMARK_H
#define NEXMARK_H

#include <stddef.h>
#include <stdint.h>

/* The generator's settings (the reference's NexmarkConfiguration defaults by nx_config_default). */
typedef struct nx_config {
	uint64_t seed;
	int64_t base_time;          /* event time of event 0, ms since the epoch */
	double rate;                /* events per second of event time */
	int person_proportion;      /* 1 */
	int auction_proportion;     /* 3 */
	int bid_proportion;         /* 46 */
	int avg_person_size;        /* 200 */
	int avg_auction_size;       /* 500 */
	int avg_bid_size;           /* 100 */
	int hot_auction_ratio;      /* 2 */
	int hot_sellers_ratio;      /* 4 */
	int hot_bidders_ratio;      /* 4 */
	int num_in_flight_auctions; /* 100 */
	int num_active_people;      /* 1000 */
} nx_config;

typedef enum nx_kind { NX_PERSON, NX_AUCTION, NX_BID } nx_kind;

/* A string: into the generator's own buffers, valid until the next nx_next. */
typedef struct nx_str {
	const char *p;
	size_t len;
} nx_str;

typedef struct nx_person {
	int64_t id;
	nx_str name, email_address, credit_card, city, state, extra;
} nx_person;

typedef struct nx_auction {
	int64_t id, initial_bid, reserve, expires, seller, category;
	nx_str item_name, description, extra;
} nx_auction;

typedef struct nx_bid {
	int64_t auction, bidder, price;
	nx_str channel, url, extra;
} nx_bid;

typedef struct nx_event {
	nx_kind kind;
	int64_t date_time; /* the event's time, ms since the epoch */
	nx_person person;
	nx_auction auction;
	nx_bid bid;
} nx_event;

typedef struct nx_gen nx_gen;

/* The reference's defaults: seed 1, rate 10000 events/s, base time 1970-01-02. */
nx_config nx_config_default(void);
/* A generator at event 0; NULL when out of memory or the config is invalid (why in *err). */
nx_gen *nx_gen_new(const nx_config *config, const char **err);
void nx_gen_free(nx_gen *g);
/* The next event (number nx_gen_count before the call). */
void nx_next(nx_gen *g, nx_event *e);
/* How many events nx_next has given. */
uint64_t nx_gen_count(const nx_gen *g);

/*
 * The event's key and value as the bench's topics hold them: the key is
 * the decimal id (a bid's: its auction's), the value one JSON object with
 * the reference's field names (dateTime and expires in ms since the
 * epoch).  Writes into buf (cap bytes) and returns the length, or the
 * length needed when that is more than cap.
 */
size_t nx_key(const nx_event *e, char *buf, size_t cap);
size_t nx_json(const nx_event *e, char *buf, size_t cap);
/* "person", "auction" or "bid". */
const char *nx_kind_name(nx_kind kind);

/* Kafka's default partitioner over key bytes (Utils.murmur2, positive, mod partitions). */
int32_t nx_partition(const char *key, size_t len, int32_t partitions);

#endif

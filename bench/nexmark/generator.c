/*
 * generator.c - the Nexmark events (nexmark.h says what they are and
 * where the rules come from).  No Kafka here: gen.c writes the events out.
 */
#include "nexmark.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_AUCTION_ID 1000
#define FIRST_PERSON_ID 1000
#define FIRST_CATEGORY_ID 10
#define NUM_CATEGORIES 5
#define AUCTION_ID_LEAD 10
#define PERSON_ID_LEAD 10
#define HOT_SELLER_BATCH 100 /* the reference's HOT_SELLER_RATIO: the size of a batch of people */
#define HOT_AUCTION_BATCH 100
#define HOT_BIDDER_BATCH 100
#define HOT_CHANNELS_RATIO 2
#define CHANNELS 10000
#define MIN_STRING_LENGTH 3
#define REUSABLE_LENGTH (1024 * 1024)
#define GOLDEN_GAMMA UINT64_C(0x9e3779b97f4a7c15)

/* Java's SplittableRandom, made with new SplittableRandom(seed). */
typedef struct rng {
	uint64_t seed;
} rng;

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static int32_t mix32(uint64_t z)
{
	z = (z ^ (z >> 33)) * UINT64_C(0x62a9d9ed799705f5);
	return (int32_t)(uint32_t)(((z ^ (z >> 28)) * UINT64_C(0xcb24d0a5c88c35b3)) >> 32);
}

static uint64_t next_seed(rng *r)
{
	return r->seed += GOLDEN_GAMMA;
}

/* nextInt(): any int. */
static int32_t next_int(rng *r)
{
	return mix32(next_seed(r));
}

/*
 * nextInt(bound), 0 <= result < bound: a mask for a power of two, else
 * Java's rejection loop (a draw is redrawn when u + m - r overflows an
 * int, which keeps the result uniform).
 */
static int32_t next_int_below(rng *r, int32_t bound)
{
	assert(bound > 0);
	int32_t v = mix32(next_seed(r));
	int32_t m = bound - 1;
	if ((bound & m) == 0)
		return v & m;
	for (int32_t u = (int32_t)((uint32_t)v >> 1);; u = (int32_t)((uint32_t)mix32(next_seed(r)) >> 1)) {
		v = u % bound;
		if ((int64_t)u + m - v <= INT32_MAX)
			return v;
	}
}

static int64_t next_long(rng *r)
{
	return (int64_t)mix64(next_seed(r));
}

/* nextDouble(): 53 random bits in [0, 1). */
static double next_double(rng *r)
{
	return (double)(mix64(next_seed(r)) >> 11) * 0x1.0p-53;
}

/* The reference's LongGenerator.nextLong(n): an int draw below n, or a skewed long one for a huge n. */
static int64_t long_below(rng *r, int64_t n)
{
	if (n < INT32_MAX)
		return next_int_below(r, (int32_t)n);
	int64_t v = next_long(r) % n;
	return v < 0 ? -v : v;
}

/* Java's Math.round for the positive values prices are. */
static int64_t java_round(double x)
{
	return (int64_t)floor(x + 0.5);
}

/* PriceGenerator.nextPrice: cents, log-uniform from 1.00 to 1,000,000.00. */
static int64_t next_price(rng *r)
{
	return java_round(pow(10.0, next_double(r) * 6.0) * 100.0);
}

/* A growing byte buffer of the strings of one event. */
typedef struct text {
	char *p;
	size_t len, cap;
} text;

struct nx_gen {
	nx_config c;
	int total_proportion;
	double inter_event_delay_us;
	uint64_t count;
	rng r;
	char *reusable;                /* REUSABLE_EXTRA_STRING */
	char hot_urls[4][64];
	char *channel_names[CHANNELS]; /* "channel-<i>" */
	char *channel_urls[CHANNELS];
	char credit_cards[10000][5];   /* "%04d" */
	text t;                        /* this event's strings */
	bool oom;
};

/* Reserves n bytes at the end of g's text; NULL (and oom) when out of memory. */
static char *text_grow(nx_gen *g, size_t n)
{
	if (g->t.len + n > g->t.cap) {
		/* The strings point into t: it must not move within an event, so it is sized up front. */
		g->oom = true;
		return NULL;
	}
	char *p = g->t.p + g->t.len;
	g->t.len += n;
	return p;
}

/*
 * StringsGenerator.nextString(maxLength, special): 3 to maxLength - 1
 * characters, each the special one 1 in 13 times, else a lower-case
 * letter, then trimmed of the special character when it is a space
 * (Java's trim; '_' is kept).
 */
static nx_str next_string(nx_gen *g, rng *r, int max_length, char special, char *into)
{
	int len = MIN_STRING_LENGTH + next_int_below(r, max_length - MIN_STRING_LENGTH);
	char *p = into ? into : text_grow(g, (size_t)len);
	char scratch[128];
	if (!p)
		p = scratch; /* the draws still happen; the event is lost to oom */
	for (int i = 0; i < len; i++)
		p[i] = next_int_below(r, 13) == 0 ? special : (char)('a' + next_int_below(r, 26));
	size_t from = 0, to = (size_t)len;
	while (special == ' ' && from < to && p[from] == ' ')
		from++;
	while (special == ' ' && to > from && p[to - 1] == ' ')
		to--;
	return (nx_str){ p + from, to - from };
}

/*
 * StringsGenerator.nextExactString's long form: length characters, six
 * from each int draw ('a' + rnd % 26 with Java's signed remainder, so a
 * negative draw gives 'H' to '`').
 */
static void exact_string(rng *r, char *p, size_t length)
{
	int32_t rnd = 0;
	int n = 0;
	for (size_t i = 0; i < length; i++) {
		if (n == 0) {
			rnd = next_int(r);
			n = 6;
		}
		p[i] = (char)('a' + rnd % 26);
		rnd /= 26;
		n--;
	}
}

/* StringsGenerator.nextExtra: padding to about the average size, a slice of the 1 MiB string. */
static nx_str next_extra(nx_gen *g, rng *r, int current_size, int desired_average)
{
	if (current_size > desired_average)
		return (nx_str){ "", 0 };
	desired_average -= current_size;
	int delta = (int)java_round(desired_average * 0.2);
	int min_size = desired_average - delta;
	int size = min_size + (delta == 0 ? 0 : next_int_below(r, 2 * delta));
	assert(size < REUSABLE_LENGTH / 2);
	int offset = next_int_below(r, REUSABLE_LENGTH - size);
	return (nx_str){ g->reusable + offset, (size_t)size };
}

/* BidGenerator.getBaseUrl. */
static void base_url(nx_gen *g, rng *r, char *out, size_t cap)
{
	char a[8], b[8], c[8];
	nx_str x = next_string(g, r, 5, '_', a), y = next_string(g, r, 5, '_', b), z = next_string(g, r, 5, '_', c);
	snprintf(out, cap, "https://www.nexmark.com/%.*s/%.*s/%.*s/item.htm?query=1", (int)x.len, x.p, (int)y.len, y.p,
	         (int)z.len, z.p);
}

/* Java's Integer.reverse. */
static int32_t int_reverse(int32_t v)
{
	uint32_t x = (uint32_t)v, y = 0;
	for (int i = 0; i < 32; i++, x >>= 1)
		y = (y << 1) | (x & 1);
	return (int32_t)y;
}

/* A malloc'ed copy of s (strdup is not C11). */
static char *copy_of(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	return p ? memcpy(p, s, n) : NULL;
}

nx_config nx_config_default(void)
{
	return (nx_config){
		.seed = 1,
		.base_time = 86400000, /* 1970-01-02: bench/README.md says why the bench's times start there */
		.rate = 10000,
		.person_proportion = 1,
		.auction_proportion = 3,
		.bid_proportion = 46,
		.avg_person_size = 200,
		.avg_auction_size = 500,
		.avg_bid_size = 100,
		.hot_auction_ratio = 2,
		.hot_sellers_ratio = 4,
		.hot_bidders_ratio = 4,
		.num_in_flight_auctions = 100,
		.num_active_people = 1000,
	};
}

nx_gen *nx_gen_new(const nx_config *config, const char **err)
{
	const nx_config *c = config;
	if (c->person_proportion < 1 || c->auction_proportion < 1 || c->bid_proportion < 0 || c->hot_auction_ratio < 1 ||
	    c->hot_sellers_ratio < 1 || c->hot_bidders_ratio < 1 || c->num_in_flight_auctions < 1 ||
	    c->num_active_people < 1 || !(c->rate > 0) || c->avg_person_size > 100000 || c->avg_auction_size > 100000 ||
	    c->avg_bid_size > 100000) {
		*err = "invalid generator settings";
		return NULL;
	}
	nx_gen *g = calloc(1, sizeof *g);
	if (!g) {
		*err = "out of memory";
		return NULL;
	}
	g->c = *c;
	g->total_proportion = c->person_proportion + c->auction_proportion + c->bid_proportion;
	g->inter_event_delay_us = 1000000.0 / c->rate;
	g->r.seed = c->seed;
	/* The reference's static tables, each from its own generator, derived from the seed. */
	rng extra_rng = { mix64(c->seed ^ UINT64_C(0x6e65786d61726b31)) };
	rng url_rng = { mix64(c->seed ^ UINT64_C(0x6e65786d61726b32)) };
	g->reusable = malloc(REUSABLE_LENGTH);
	g->t.cap = 4096;
	g->t.p = malloc(g->t.cap);
	if (!g->reusable || !g->t.p)
		goto oom;
	exact_string(&extra_rng, g->reusable, REUSABLE_LENGTH);
	for (int i = 0; i < 4; i++)
		base_url(g, &url_rng, g->hot_urls[i], sizeof g->hot_urls[i]);
	for (int i = 0; i < CHANNELS; i++) {
		char url[96], name[24];
		base_url(g, &url_rng, url, sizeof url);
		if (next_int_below(&url_rng, 10) > 0) {
			/* Math.abs(Integer.reverse(i)): Integer.MIN_VALUE (i = 1) stays negative. */
			int32_t rev = int_reverse(i);
			int64_t id = rev == INT32_MIN ? (int64_t)INT32_MIN : (int64_t)(rev < 0 ? -rev : rev);
			size_t n = strlen(url);
			snprintf(url + n, sizeof url - n, "&channel_id=%" PRId64, id);
		}
		snprintf(name, sizeof name, "channel-%d", i);
		g->channel_urls[i] = copy_of(url);
		g->channel_names[i] = copy_of(name);
		if (!g->channel_urls[i] || !g->channel_names[i])
			goto oom;
	}
	for (int i = 0; i < 10000; i++)
		snprintf(g->credit_cards[i], sizeof g->credit_cards[i], "%04d", i);
	return g;
oom:
	nx_gen_free(g);
	*err = "out of memory";
	return NULL;
}

void nx_gen_free(nx_gen *g)
{
	if (!g)
		return;
	for (int i = 0; i < CHANNELS; i++) {
		free(g->channel_urls[i]);
		free(g->channel_names[i]);
	}
	free(g->reusable);
	free(g->t.p);
	free(g);
}

uint64_t nx_gen_count(const nx_gen *g)
{
	return g->count;
}

/* GeneratorConfig.timestampForEvent. */
static int64_t timestamp_for(const nx_gen *g, uint64_t event_number)
{
	return g->c.base_time + (int64_t)((double)event_number * g->inter_event_delay_us) / 1000;
}

/* PersonGenerator.lastBase0PersonId: the last person at or before event id. */
static int64_t last_person(const nx_gen *g, int64_t event_id)
{
	int64_t epoch = event_id / g->total_proportion, offset = event_id % g->total_proportion;
	if (offset >= g->c.person_proportion)
		offset = g->c.person_proportion - 1;
	return epoch * g->c.person_proportion + offset;
}

/* AuctionGenerator.lastBase0AuctionId: the last auction at or before event id. */
static int64_t last_auction(const nx_gen *g, int64_t event_id)
{
	int64_t epoch = event_id / g->total_proportion, offset = event_id % g->total_proportion;
	if (offset < g->c.person_proportion) {
		epoch--;
		offset = g->c.auction_proportion - 1;
	} else if (offset >= g->c.person_proportion + g->c.auction_proportion) {
		offset = g->c.auction_proportion - 1;
	} else {
		offset -= g->c.person_proportion;
	}
	return epoch * g->c.auction_proportion + offset;
}

/* PersonGenerator.nextBase0PersonId: one of the active people, or a few ids ahead. */
static int64_t random_person(nx_gen *g, int64_t event_id)
{
	int64_t people = last_person(g, event_id) + 1;
	int64_t active = people < g->c.num_active_people ? people : g->c.num_active_people;
	return people - active + long_below(&g->r, active + PERSON_ID_LEAD);
}

/* AuctionGenerator.nextBase0AuctionId: one of those in flight, or a few ids ahead. */
static int64_t random_auction(nx_gen *g, int64_t event_id)
{
	int64_t max = last_auction(g, event_id);
	int64_t min = max - g->c.num_in_flight_auctions > 0 ? max - g->c.num_in_flight_auctions : 0;
	return min + long_below(&g->r, max - min + 1 + AUCTION_ID_LEAD);
}

static const char *const US_STATES[] = { "AZ", "CA", "ID", "OR", "WA", "WY" };
static const char *const US_CITIES[] = { "Phoenix", "Los Angeles", "San Francisco", "Boise",   "Portland",
	                                 "Bend",    "Redmond",     "Seattle",       "Kent",    "Cheyenne" };
static const char *const FIRST_NAMES[] = { "Peter", "Paul",  "Luke",  "John",   "Saul",  "Vicky",
	                                   "Kate",  "Julie", "Sarah", "Deiter", "Walter" };
static const char *const LAST_NAMES[] = { "Shultz", "Abrams", "Spencer", "White", "Bartels",
	                                  "Walton", "Smith",  "Jones",   "Noris" };
static const char *const HOT_CHANNELS[] = { "Google", "Facebook", "Baidu", "Apple" };
#define COUNT(a) ((int32_t)(sizeof(a) / sizeof(a)[0]))

static nx_str str_of(const char *s)
{
	return (nx_str){ s, strlen(s) };
}

/* Copies n bytes into this event's text. */
static nx_str text_copy(nx_gen *g, const char *s, size_t n)
{
	char *p = text_grow(g, n);
	if (!p)
		return (nx_str){ "", 0 };
	memcpy(p, s, n);
	return (nx_str){ p, n };
}

/* PersonGenerator.nextPerson. */
static void next_person(nx_gen *g, int64_t event_id, nx_person *p)
{
	rng *r = &g->r;
	p->id = last_person(g, event_id) + FIRST_PERSON_ID;
	const char *first = FIRST_NAMES[next_int_below(r, COUNT(FIRST_NAMES))];
	const char *last = LAST_NAMES[next_int_below(r, COUNT(LAST_NAMES))];
	char name[32];
	int n = snprintf(name, sizeof name, "%s %s", first, last);
	p->name = text_copy(g, name, (size_t)n);
	char user_buf[8], domain_buf[8], email[24];
	nx_str user = next_string(g, r, 7, ' ', user_buf), domain = next_string(g, r, 5, ' ', domain_buf);
	n = snprintf(email, sizeof email, "%.*s@%.*s.com", (int)user.len, user.p, (int)domain.len, domain.p);
	p->email_address = text_copy(g, email, (size_t)n);
	char card[20];
	n = snprintf(card, sizeof card, "%s %s %s %s", g->credit_cards[next_int_below(r, 10000)],
	             g->credit_cards[next_int_below(r, 10000)], g->credit_cards[next_int_below(r, 10000)],
	             g->credit_cards[next_int_below(r, 10000)]);
	p->credit_card = text_copy(g, card, (size_t)n);
	p->city = str_of(US_CITIES[next_int_below(r, COUNT(US_CITIES))]);
	p->state = str_of(US_STATES[next_int_below(r, COUNT(US_STATES))]);
	int size = 8 + (int)(p->name.len + p->email_address.len + p->credit_card.len + p->city.len + p->state.len);
	p->extra = next_extra(g, r, size, g->c.avg_person_size);
}

/* AuctionGenerator.nextAuction (timestamp: the event's time). */
static void next_auction(nx_gen *g, int64_t event_id, int64_t timestamp, nx_auction *a)
{
	rng *r = &g->r;
	a->id = last_auction(g, event_id) + FIRST_AUCTION_ID;
	if (next_int_below(r, g->c.hot_sellers_ratio) > 0)
		a->seller = (last_person(g, event_id) / HOT_SELLER_BATCH) * HOT_SELLER_BATCH;
	else
		a->seller = random_person(g, event_id);
	a->seller += FIRST_PERSON_ID;
	a->category = FIRST_CATEGORY_ID + next_int_below(r, NUM_CATEGORIES);
	a->initial_bid = next_price(r);
	/* nextAuctionLengthMs: on average the time until num_in_flight_auctions auctions later. */
	int64_t events_for_auctions =
		((int64_t)g->c.num_in_flight_auctions * g->total_proportion) / g->c.auction_proportion;
	int64_t horizon = timestamp_for(g, g->count + (uint64_t)events_for_auctions) - timestamp;
	a->expires = timestamp + 1 + long_below(r, horizon * 2 > 1 ? horizon * 2 : 1);
	a->item_name = next_string(g, r, 20, ' ', NULL);
	a->description = next_string(g, r, 100, ' ', NULL);
	a->reserve = a->initial_bid + next_price(r);
	int size = 8 + (int)(a->item_name.len + a->description.len) + 8 + 8 + 8 + 8 + 8;
	a->extra = next_extra(g, r, size, g->c.avg_auction_size);
}

/* BidGenerator.nextBid. */
static void next_bid(nx_gen *g, int64_t event_id, nx_bid *b)
{
	rng *r = &g->r;
	if (next_int_below(r, g->c.hot_auction_ratio) > 0)
		b->auction = (last_auction(g, event_id) / HOT_AUCTION_BATCH) * HOT_AUCTION_BATCH;
	else
		b->auction = random_auction(g, event_id);
	b->auction += FIRST_AUCTION_ID;
	if (next_int_below(r, g->c.hot_bidders_ratio) > 0)
		b->bidder = (last_person(g, event_id) / HOT_BIDDER_BATCH) * HOT_BIDDER_BATCH + 1;
	else
		b->bidder = random_person(g, event_id);
	b->bidder += FIRST_PERSON_ID;
	b->price = next_price(r);
	if (next_int_below(r, HOT_CHANNELS_RATIO) > 0) {
		int i = next_int_below(r, COUNT(HOT_CHANNELS));
		b->channel = str_of(HOT_CHANNELS[i]);
		b->url = str_of(g->hot_urls[i]);
	} else {
		int i = next_int_below(r, CHANNELS);
		b->channel = str_of(g->channel_names[i]);
		b->url = str_of(g->channel_urls[i]);
	}
	b->bidder += FIRST_PERSON_ID; /* the reference adds it twice (nexmark.h) */
	b->extra = next_extra(g, r, 8 + 8 + 8 + 8, g->c.avg_bid_size);
}

void nx_next(nx_gen *g, nx_event *e)
{
	g->t.len = 0;
	int64_t event_id = (int64_t)g->count; /* firstEventId 0, outOfOrderGroupSize 1 */
	e->date_time = timestamp_for(g, g->count);
	int64_t rem = event_id % g->total_proportion;
	if (rem < g->c.person_proportion) {
		e->kind = NX_PERSON;
		next_person(g, event_id, &e->person);
	} else if (rem < g->c.person_proportion + g->c.auction_proportion) {
		e->kind = NX_AUCTION;
		next_auction(g, event_id, e->date_time, &e->auction);
	} else {
		e->kind = NX_BID;
		next_bid(g, event_id, &e->bid);
	}
	assert(!g->oom); /* the text holds one event's strings: at most ~200 bytes */
	g->count++;
}

const char *nx_kind_name(nx_kind kind)
{
	return kind == NX_PERSON ? "person" : kind == NX_AUCTION ? "auction" : "bid";
}

size_t nx_key(const nx_event *e, char *buf, size_t cap)
{
	int64_t id = e->kind == NX_PERSON ? e->person.id : e->kind == NX_AUCTION ? e->auction.id : e->bid.auction;
	int n = snprintf(buf, cap, "%" PRId64, id);
	return (size_t)n;
}

/* A JSON writer into a bounded buffer that counts what it would need. */
typedef struct out {
	char *p;
	size_t len, cap;
} out;

static void out_raw(out *o, const char *s, size_t n)
{
	if (o->len + n <= o->cap)
		memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void out_long(out *o, const char *name, int64_t v, bool first)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof tmp, "%s\"%s\":%" PRId64, first ? "" : ",", name, v);
	out_raw(o, tmp, (size_t)n);
}

/* "name":"value": the generated strings need escaping only for a backslash (from the padding). */
static void out_str(out *o, const char *name, nx_str s)
{
	out_raw(o, ",\"", 2);
	out_raw(o, name, strlen(name));
	out_raw(o, "\":\"", 3);
	size_t from = 0;
	for (size_t i = 0; i < s.len; i++) {
		assert((unsigned char)s.p[i] >= 0x20 && s.p[i] != '"');
		if (s.p[i] == '\\') {
			out_raw(o, s.p + from, i - from);
			out_raw(o, "\\\\", 2);
			from = i + 1;
		}
	}
	out_raw(o, s.p + from, s.len - from);
	out_raw(o, "\"", 1);
}

size_t nx_json(const nx_event *e, char *buf, size_t cap)
{
	out o = { buf, 0, cap };
	out_raw(&o, "{", 1);
	switch (e->kind) {
	case NX_PERSON: {
		const nx_person *p = &e->person;
		out_long(&o, "id", p->id, true);
		out_str(&o, "name", p->name);
		out_str(&o, "emailAddress", p->email_address);
		out_str(&o, "creditCard", p->credit_card);
		out_str(&o, "city", p->city);
		out_str(&o, "state", p->state);
		out_long(&o, "dateTime", e->date_time, false);
		out_str(&o, "extra", p->extra);
		break;
	}
	case NX_AUCTION: {
		const nx_auction *a = &e->auction;
		out_long(&o, "id", a->id, true);
		out_str(&o, "itemName", a->item_name);
		out_str(&o, "description", a->description);
		out_long(&o, "initialBid", a->initial_bid, false);
		out_long(&o, "reserve", a->reserve, false);
		out_long(&o, "dateTime", e->date_time, false);
		out_long(&o, "expires", a->expires, false);
		out_long(&o, "seller", a->seller, false);
		out_long(&o, "category", a->category, false);
		out_str(&o, "extra", a->extra);
		break;
	}
	case NX_BID: {
		const nx_bid *b = &e->bid;
		out_long(&o, "auction", b->auction, true);
		out_long(&o, "bidder", b->bidder, false);
		out_long(&o, "price", b->price, false);
		out_str(&o, "channel", b->channel);
		out_str(&o, "url", b->url);
		out_long(&o, "dateTime", e->date_time, false);
		out_str(&o, "extra", b->extra);
		break;
	}
	}
	out_raw(&o, "}", 1);
	return o.len;
}

/* Kafka's Utils.murmur2 (seed 0x9747b28c), as its default partitioner uses it. */
int32_t nx_partition(const char *key, size_t len, int32_t partitions)
{
	const uint32_t m = 0x5bd1e995;
	const int r = 24;
	const unsigned char *d = (const unsigned char *)key;
	uint32_t h = 0x9747b28c ^ (uint32_t)len;
	size_t i = 0;
	for (; i + 4 <= len; i += 4) {
		uint32_t k = (uint32_t)d[i] | (uint32_t)d[i + 1] << 8 | (uint32_t)d[i + 2] << 16 | (uint32_t)d[i + 3] << 24;
		k *= m;
		k ^= k >> r;
		k *= m;
		h *= m;
		h ^= k;
	}
	switch (len - i) {
	case 3: h ^= (uint32_t)d[i + 2] << 16; /* fall through */
	case 2: h ^= (uint32_t)d[i + 1] << 8;  /* fall through */
	case 1: h ^= d[i]; h *= m;
	}
	h ^= h >> 13;
	h *= m;
	h ^= h >> 15;
	return (int32_t)((h & 0x7fffffff) % (uint32_t)partitions);
}

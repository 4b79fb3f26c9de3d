package stoat.bench.ks;

/** bench/kafka/filter_map.stoat's output value; JSON fields in this order (SummarySerde). */
record Summary(String id, String user, String kind, String country, double total, long tag_count,
		String platform, boolean referred) {

	/** The map_values of filter_map.stoat. */
	static Summary of(Event e) {
		return new Summary(e.event_id(), e.user_id(), Text.upper(e.kind()), e.country(),
				e.amount() * (double) e.quantity(), e.tags().size(),
				e.device().os() + "/" + e.device().version(), e.referrer() != null);
	}
}

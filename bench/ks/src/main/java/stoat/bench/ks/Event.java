package stoat.bench.ks;

import java.util.List;
import java.util.Objects;

/**
 * bench/kafka/filter_map.stoat's input value. Jackson fills the records through
 * their constructors; a missing or null non-nullable field (everything but
 * referrer) or array element is an error, as stoat's generated reader reports
 * it. Unknown fields are skipped, as stoat does.
 */
record Event(String event_id, String user_id, String session_id, String kind, Long ts, Double amount,
		Long quantity, Double score, String country, String url, String referrer, String user_agent,
		Device device, List<String> tags, List<Long> cart, String note, String description) {
	Event {
		Objects.requireNonNull(event_id, "event_id");
		Objects.requireNonNull(user_id, "user_id");
		Objects.requireNonNull(session_id, "session_id");
		Objects.requireNonNull(kind, "kind");
		Objects.requireNonNull(ts, "ts");
		Objects.requireNonNull(amount, "amount");
		Objects.requireNonNull(quantity, "quantity");
		Objects.requireNonNull(score, "score");
		Objects.requireNonNull(country, "country");
		Objects.requireNonNull(url, "url");
		Objects.requireNonNull(user_agent, "user_agent");
		Objects.requireNonNull(device, "device");
		Objects.requireNonNull(tags, "tags");
		Objects.requireNonNull(cart, "cart");
		Objects.requireNonNull(note, "note");
		Objects.requireNonNull(description, "description");
		for (String t : tags)
			Objects.requireNonNull(t, "tags[]");
		for (Long c : cart)
			Objects.requireNonNull(c, "cart[]");
	}

	record Screen(Long width, Long height, Double dpr) {
		Screen {
			Objects.requireNonNull(width, "width");
			Objects.requireNonNull(height, "height");
			Objects.requireNonNull(dpr, "dpr");
		}
	}

	record Device(String os, String version, String model, Screen screen) {
		Device {
			Objects.requireNonNull(os, "os");
			Objects.requireNonNull(version, "version");
			Objects.requireNonNull(model, "model");
			Objects.requireNonNull(screen, "screen");
		}
	}
}

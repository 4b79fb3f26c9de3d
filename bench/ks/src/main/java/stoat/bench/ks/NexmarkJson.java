package stoat.bench.ks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The JSON serdes of the Nexmark queries: any NexmarkTypes record, read as strictly as stoat's
 * generated reader (JsonSerdes' rules, and every field required: a missing or null one fails the
 * record) and written as stoat writes it (fields in declaration order, doubles spelt by F64,
 * stoat's string escapes). The same serde serves the stores and the repartition topics.
 */
final class NexmarkJson {
	private NexmarkJson() {
	}

	/* stoat's string escapes (see JsonSerdes.FACTORY). */
	private static final JsonFactory FACTORY = JsonFactory.builder()
			.disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
			.enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
			.build();

	/* A double as stoat_format_f64 writes it; NaN and infinities are errors, as in stoat. */
	private static final class F64Serializer extends StdSerializer<Double> {
		F64Serializer() {
			super(Double.class);
		}

		@Override
		public void serialize(Double v, JsonGenerator g, SerializerProvider p) throws IOException {
			String s = F64.format(v);
			if (s == null)
				throw new SerializationException(v + " cannot be written as JSON");
			g.writeNumber(s);
		}
	}

	private static final JsonMapper MAPPER;
	static {
		SimpleModule f64 = new SimpleModule("stoat-f64");
		f64.addSerializer(Double.class, new F64Serializer());
		f64.addSerializer(double.class, new F64Serializer());
		MAPPER = JsonMapper.builder(FACTORY)
				.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES) // stoat skips unknown fields
				.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
				.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT) // an i64 field must hold an integer
				.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
				.enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
				.enable(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
				.disable(MapperFeature.ALLOW_COERCION_OF_SCALARS) // no "12" for a number
				.addModule(f64)
				.build();
		MAPPER.coercionConfigFor(LogicalType.Textual)
				.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
				.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
				.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
	}

	/* Reads a T, counting in `counter` (when not null) each record it reads from `counted`. */
	private static <T> Deserializer<T> reader(Class<T> type, LongAdder counter, String counted) {
		ObjectReader r = MAPPER.readerFor(type);
		return (topic, data) -> {
			if (counter != null && counted.equals(topic))
				counter.increment();
			if (data == null)
				return null; // a tombstone (table sources, the table joins' and aggregates' deletes)
			try {
				return r.readValue(data);
			} catch (IOException e) {
				throw new SerializationException("bad " + type.getSimpleName() + " JSON in " + topic + ": "
						+ e.getMessage(), e);
			}
		};
	}

	private static <T> Serializer<T> writer(Class<T> type) {
		ObjectWriter w = MAPPER.writerFor(type);
		return (topic, v) -> {
			if (v == null)
				return null;
			try {
				return w.writeValueAsBytes(v);
			} catch (IOException e) {
				throw new SerializationException("cannot write " + type.getSimpleName() + ": " + e.getMessage(), e);
			}
		};
	}

	/** The serde of a NexmarkTypes record. */
	static <T> Serde<T> serde(Class<T> type) {
		return Serdes.serdeFrom(writer(type), reader(type, null, null));
	}

	/**
	 * The same, counting in `counter` every record it reads from `topic`: a table's source topic,
	 * whose records pass no peek. StreamsBuilder.table gives the table's store the Consumed serdes
	 * (over the Materialized ones), so the store's reads come here too, but as its changelog's.
	 */
	static <T> Serde<T> counted(Class<T> type, LongAdder counter, String topic) {
		return Serdes.serdeFrom(writer(type), reader(type, counter, topic));
	}

	/**
	 * q0's value: the bytes as they came, once they have been read as a Bid (the record a stoat
	 * `to` writes unchanged keeps its bytes, but stoat's reader parses it first).
	 */
	static Serde<byte[]> checkedBid() {
		ObjectReader r = MAPPER.readerFor(NexmarkTypes.Bid.class);
		Deserializer<byte[]> d = (topic, data) -> {
			if (data == null)
				throw new SerializationException("null where a Bid is expected (" + topic + ")");
			try {
				r.readValue(data);
			} catch (IOException e) {
				throw new SerializationException("bad Bid JSON in " + topic + ": " + e.getMessage(), e);
			}
			return data;
		};
		return Serdes.serdeFrom(Serdes.ByteArray().serializer(), d);
	}

	/**
	 * A String key serde whose deserializer counts its calls in `counter`: the key of a repartition
	 * topic that Kafka Streams creates itself (a table's groupBy), read once per record there.
	 */
	static Serde<String> countedKey(LongAdder counter) {
		Deserializer<String> d = new StringDeserializer() {
			@Override
			public String deserialize(String topic, byte[] data) {
				counter.increment();
				return super.deserialize(topic, data);
			}
		};
		return Serdes.serdeFrom(new StringSerializer(), d);
	}
}

package stoat.bench.ks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/** The JSON serdes of filter_map: Event in (Jackson databind), Summary out (written as stoat writes it). */
final class JsonSerdes {
	private JsonSerdes() {
	}

	private static final JsonMapper MAPPER = JsonMapper.builder()
			.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES) // stoat skips unknown fields
			.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
			.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT) // an i64 field must hold an integer
			.disable(MapperFeature.ALLOW_COERCION_OF_SCALARS) // no "12" for a number
			.build();
	static {
		// nor a number or boolean for a string
		MAPPER.coercionConfigFor(LogicalType.Textual)
				.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
				.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
				.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
	}
	private static final ObjectReader EVENT_READER = MAPPER.readerFor(Event.class);

	static Serde<Event> event() {
		Deserializer<Event> d = (topic, data) -> {
			if (data == null)
				throw new SerializationException("null value where an Event is expected");
			try {
				return EVENT_READER.readValue(data);
			} catch (IOException e) {
				throw new SerializationException("bad Event JSON: " + e.getMessage(), e);
			}
		};
		Serializer<Event> s = (topic, e) -> {
			throw new UnsupportedOperationException("Event is only read");
		};
		return Serdes.serdeFrom(s, d);
	}

	/*
	 * stoat's string escapes (runtime/src/buf.c, stoat_buf_put_json_str): \" \\ \n \t \r \b \f, the other
	 * control characters as \\u00xx in lower case, everything else (DEL and non-ASCII too) as is, in
	 * UTF-8. Jackson's defaults differ in the case of the hex digits and in writing characters
	 * beyond U+FFFF (surrogate pairs) as two \\uXXXX escapes instead of their 4 UTF-8 bytes.
	 */
	private static final JsonFactory FACTORY = JsonFactory.builder()
			.disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
			.enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
			.build();

	static Serde<Summary> summary() {
		Serializer<Summary> s = (topic, v) -> {
			if (v == null)
				return null;
			String total = F64.format(v.total());
			if (total == null)
				throw new SerializationException("total is " + v.total() + ", which JSON cannot hold");
			ByteArrayBuilder out = new ByteArrayBuilder(256);
			try (JsonGenerator g = FACTORY.createGenerator(out)) {
				g.writeStartObject();
				g.writeStringField("id", v.id());
				g.writeStringField("user", v.user());
				g.writeStringField("kind", v.kind());
				g.writeStringField("country", v.country());
				g.writeFieldName("total");
				g.writeNumber(total);
				g.writeNumberField("tag_count", v.tag_count());
				g.writeStringField("platform", v.platform());
				g.writeBooleanField("referred", v.referred());
				g.writeEndObject();
			} catch (IOException e) {
				throw new SerializationException(e);
			}
			return out.toByteArray();
		};
		Deserializer<Summary> d = (topic, data) -> {
			throw new UnsupportedOperationException("Summary is only written");
		};
		return Serdes.serdeFrom(s, d);
	}
}

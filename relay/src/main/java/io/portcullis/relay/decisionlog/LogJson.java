package io.portcullis.relay.decisionlog;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import io.portcullis.log.ControlEscapes;
import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Target;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.Function;

/**
 * The JSON text of a log line, with every control character inside a string escaped
 * ({@link ControlEscapes}), so one line is always one record (SPEC R17), whatever the client sent.
 * An empty {@code Optional} is {@code null}; an address is its canonical text ({@link Target#text}),
 * a deny code its wire name, an instant ISO-8601. A decision, the line written per connection, is
 * written by hand ({@link DecisionLine}); Jackson writes the rest and is what that is held to.
 */
final class LogJson {
    private static final ObjectWriter JSON = new ObjectMapper()
            .registerModule(new Jdk8Module())
            .registerModule(new SimpleModule("portcullis-line")
                    .addSerializer(InetAddress.class, text(Target::text))
                    .addSerializer(InetSocketAddress.class, text(Target::text))
                    .addSerializer(DenyCode.class, text(DenyCode::code))
                    .addSerializer(Instant.class, text(Instant::toString)))
            .writer()
            .with(new ControlEscapes());

    private LogJson() {}

    private static <T> JsonSerializer<T> text(Function<T, String> shown) {
        return new JsonSerializer<>() {
            @Override
            public void serialize(T value, JsonGenerator out, SerializerProvider provider) throws IOException {
                out.writeString(shown.apply(value));
            }
        };
    }

    /** A decision or end line is written by {@link DecisionLine}, the same text at a small part of the cost. */
    static String text(Object line) {
        return switch (line) {
            case Decision decision -> DecisionLine.text(decision);
            case Ended ended -> DecisionLine.text(ended);
            default -> jackson(line);
        };
    }

    /** The text Jackson gives, which {@link DecisionLine} must equal for a decision and an end line. */
    static String jackson(Object line) {
        try {
            return JSON.writeValueAsString(line);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The line's UTF-8 bytes, with its line end. */
    static byte[] line(Object line) {
        return (text(line) + '\n').getBytes(StandardCharsets.UTF_8);
    }
}

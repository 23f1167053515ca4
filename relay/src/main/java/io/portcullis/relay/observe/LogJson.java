package io.portcullis.relay.observe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.portcullis.log.ControlEscapes;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The JSON text of a log line, with every control character inside a string escaped
 * ({@link ControlEscapes}), so one line is always one record (SPEC R17), whatever the client sent.
 */
final class LogJson {
    private static final ObjectWriter JSON = new ObjectMapper().writer().with(new ControlEscapes());

    private LogJson() {}

    static String text(Object line) {
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

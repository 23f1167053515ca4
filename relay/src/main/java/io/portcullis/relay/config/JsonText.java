package io.portcullis.relay.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.Serial;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reads JSON text strictly: one value, no duplicate fields, no comments, no trailing tokens. */
final class JsonText {
    private static final int MAX_BYTES = 1 << 20;

    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    private JsonText() {}

    static JsonNode parse(String source, String json) throws ConfigException {
        if (json.startsWith("\uFEFF")) {
            throw new ConfigException(
                    source, List.of("(json): starts with a UTF-8 byte order mark (expected: plain UTF-8 JSON)"));
        }
        try (JsonParser parser = MAPPER.createParser(json)) {
            if (parser.nextToken() == null) {
                throw new ConfigException(source, List.of("(top level): empty (expected: a JSON object)"));
            }
            JsonNode node = tree(parser);
            if (parser.nextToken() != null) {
                throw new ConfigException(
                        source,
                        List.of("(json): more after the first value at " + where(parser.currentTokenLocation())
                                + " (expected: one well-formed JSON object)"));
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new ConfigException(
                    source, List.of("(json): " + message(e) + " (expected: one well-formed JSON object)"));
        } catch (IOException e) {
            throw new UncheckedIOException("reading JSON from a string", e);
        }
    }

    /** The value at the parser's current token; a number with a fraction or exponent keeps its text. */
    private static JsonNode tree(JsonParser parser) throws IOException {
        JsonNodeFactory nodes = MAPPER.getNodeFactory();
        return switch (parser.currentToken()) {
            case START_OBJECT -> {
                ObjectNode object = nodes.objectNode();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    object.set(name, tree(parser));
                }
                yield object;
            }
            case START_ARRAY -> {
                ArrayNode array = nodes.arrayNode();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    array.add(tree(parser));
                }
                yield array;
            }
            case VALUE_STRING -> nodes.textNode(parser.getText());
            case VALUE_NUMBER_INT -> nodes.numberNode(parser.getBigIntegerValue());
            case VALUE_NUMBER_FLOAT -> new WrittenDouble(parser.getDoubleValue(), parser.getText());
            case VALUE_TRUE -> nodes.booleanNode(true);
            case VALUE_FALSE -> nodes.booleanNode(false);
            case VALUE_NULL -> nodes.nullNode();
            default -> throw new IllegalStateException("JSON token " + parser.currentToken() + " in a value");
        };
    }

    /**
     * A double shown as the file wrote it, so a problem names {@code 1e3}, not {@code 1000.0}. Only
     * the number itself: inside an object or array that a problem shows whole, Jackson writes it.
     */
    private static final class WrittenDouble extends DoubleNode {
        @Serial
        private static final long serialVersionUID = 1L;

        private final String written;

        WrittenDouble(double value, String written) {
            super(value);
            this.written = written;
        }

        @Override
        public String toString() {
            return written;
        }
    }

    private static String message(JsonProcessingException e) {
        String text = String.valueOf(e.getOriginalMessage()).replaceAll("[\\r\\n]+", " ");
        if (text.length() > 200) {
            text = text.substring(0, 200) + "...";
        }
        var location = e.getLocation();
        return location == null ? text : text + " at " + where(location);
    }

    private static String where(JsonLocation location) {
        return "line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    /** {@code bytes} as UTF-8, strictly: a malformed sequence is an error, never a replacement character. */
    static String utf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes))
                .toString();
    }

    /** The file as UTF-8 text; unreadable, too large or not UTF-8 is a configuration error. */
    static String read(Path file) throws ConfigException {
        String source = file.toString();
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new ConfigException(
                        source, List.of("(file): larger than " + MAX_BYTES + " bytes (expected: a small JSON file)"));
            }
            return utf8(Files.readAllBytes(file));
        } catch (CharacterCodingException e) {
            throw new ConfigException(source, List.of("(file): not UTF-8 (expected: a UTF-8 JSON file)"));
        } catch (IOException e) {
            throw new ConfigException(
                    source,
                    List.of("(file): cannot read (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")"));
        }
    }
}

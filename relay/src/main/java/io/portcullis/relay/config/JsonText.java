package io.portcullis.relay.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
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
        try {
            JsonNode node = MAPPER.readTree(json);
            if (node == null || node.isMissingNode()) {
                throw new ConfigException(source, List.of("(top level): empty (expected: a JSON object)"));
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new ConfigException(
                    source, List.of("(json): " + message(e) + " (expected: one well-formed JSON object)"));
        }
    }

    private static String message(JsonProcessingException e) {
        String text = String.valueOf(e.getOriginalMessage()).replaceAll("[\\r\\n]+", " ");
        if (text.length() > 200) {
            text = text.substring(0, 200) + "...";
        }
        var location = e.getLocation();
        return location == null
                ? text
                : text + " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    /** The file as UTF-8 text; unreadable, too large or not UTF-8 is a configuration error. */
    static String read(Path file) throws ConfigException {
        String source = file.toString();
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new ConfigException(
                        source, List.of("(file): larger than " + MAX_BYTES + " bytes (expected: a small JSON file)"));
            }
            byte[] bytes = Files.readAllBytes(file);
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new ConfigException(source, List.of("(file): not UTF-8 (expected: a UTF-8 JSON file)"));
        } catch (IOException e) {
            throw new ConfigException(
                    source,
                    List.of("(file): cannot read (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")"));
        }
    }
}

package io.portcullis.relay.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Objects;

/**
 * One answer of the control API or the metrics listener.
 *
 * @param body the body, empty for {@code 204}
 * @param allow the methods of the path, for {@code 405}; empty otherwise
 */
public record Reply(HttpResponseStatus status, String contentType, String body, String allow) {
    public static final String JSON_TYPE = "application/json";
    public static final String TEXT_TYPE = "text/plain; charset=utf-8";

    public Reply {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(allow, "allow");
    }

    public static Reply json(HttpResponseStatus status, JsonNode body) {
        return new Reply(status, JSON_TYPE, body.toString() + "\n", "");
    }

    /** {@code {"errors": [...]}}: every problem, one string each. */
    public static Reply errors(HttpResponseStatus status, List<String> problems) {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        problems.forEach(body.putArray("errors")::add);
        return json(status, body);
    }

    /** One line of text. */
    public static Reply text(HttpResponseStatus status, String line) {
        return new Reply(status, TEXT_TYPE, line + "\n", "");
    }

    public static Reply noContent() {
        return new Reply(HttpResponseStatus.NO_CONTENT, JSON_TYPE, "", "");
    }

    public static Reply notAllowed(String allow) {
        return new Reply(
                HttpResponseStatus.METHOD_NOT_ALLOWED,
                JSON_TYPE,
                "{\"errors\":[\"method: not allowed (expected: " + allow + ")\"]}\n",
                allow);
    }
}

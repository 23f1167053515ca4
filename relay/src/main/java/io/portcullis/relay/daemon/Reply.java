package io.portcullis.relay.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Objects;

/**
 * One answer of the control API.
 *
 * @param body the body, empty for {@code 204}
 * @param allow the methods of the path, for {@code 405}; empty otherwise
 */
record Reply(HttpResponseStatus status, String contentType, String body, String allow) {
    static final String JSON_TYPE = "application/json";
    static final String METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    Reply {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(allow, "allow");
    }

    static Reply json(HttpResponseStatus status, JsonNode body) {
        return new Reply(status, JSON_TYPE, body.toString() + "\n", "");
    }

    /** {@code {"errors": [...]}}: every problem, one string each. */
    static Reply errors(HttpResponseStatus status, List<String> problems) {
        ObjectNode body = SpawnJson.JSON.createObjectNode();
        problems.forEach(body.putArray("errors")::add);
        return json(status, body);
    }

    static Reply noContent() {
        return new Reply(HttpResponseStatus.NO_CONTENT, JSON_TYPE, "", "");
    }

    static Reply notAllowed(String allow) {
        return new Reply(
                HttpResponseStatus.METHOD_NOT_ALLOWED,
                JSON_TYPE,
                "{\"errors\":[\"method: not allowed (expected: " + allow + ")\"]}\n",
                allow);
    }
}

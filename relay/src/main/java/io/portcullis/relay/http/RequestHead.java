package io.portcullis.relay.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A request head as the client sent it, after the strict checks of {@link HeadParser}: text is
 * the raw bytes read as ISO-8859-1, so nothing was decoded or normalised.
 *
 * @param target the request target exactly as sent
 * @param version {@code HTTP/1.1} or {@code HTTP/1.0}
 * @param fields the header fields in order, values without surrounding whitespace
 */
public record RequestHead(String method, String target, String version, List<Field> fields) {

    public static final String HTTP_1_1 = "HTTP/1.1";
    public static final String HTTP_1_0 = "HTTP/1.0";

    public RequestHead {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(version, "version");
        fields = List.copyOf(fields);
    }

    /** One header field. */
    public record Field(String name, String value) {
        public Field {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
        }

        public boolean is(String other) {
            return name.equalsIgnoreCase(other);
        }
    }

    /** Every value of the fields named {@code name} (case-insensitive), in order. */
    public List<String> values(String name) {
        List<String> values = new ArrayList<>(1);
        for (Field field : fields) {
            if (field.is(name)) {
                values.add(field.value());
            }
        }
        return values;
    }

    public boolean isHttp11() {
        return version.equals(HTTP_1_1);
    }
}

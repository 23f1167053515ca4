package io.portcullis.relay.policy;

import io.portcullis.relay.checks.Checks;
import java.util.Objects;

/**
 * What a spawn asked for, before any check.
 *
 * @param target for CONNECT and HTTP, the {@code host:port} as the client sent it (for HTTP the
 *     URI's authority with its port made explicit); for FORWARD, empty
 * @param forwardPort for FORWARD, the loopback port inside the namespace; otherwise 0
 */
public record Request(Kind kind, String target, int forwardPort) {

    /** The kind of connection (SPEC R6). */
    public enum Kind {
        /** {@code CONNECT host:port} on the proxy port. */
        CONNECT,
        /** An absolute-form {@code http://} request on the proxy port. */
        HTTP,
        /** Raw TCP on a forward port. */
        FORWARD
    }

    public Request {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(target, "target");
        if ((kind == Kind.FORWARD) != (forwardPort != 0)) {
            throw new IllegalArgumentException("forwardPort: " + forwardPort + " (expected: 1-65535 for FORWARD only)");
        }
        if (kind == Kind.FORWARD) {
            Checks.port("forwardPort", forwardPort);
        }
    }

    public static Request connect(String target) {
        return new Request(Kind.CONNECT, target, 0);
    }

    public static Request http(String target) {
        return new Request(Kind.HTTP, target, 0);
    }

    /**
     * The request that a plain HTTP request with this absolute-form target is judged as (R10), read
     * by the relay's own parser: {@code http://host[:port][/path][?query]} is {@code host:port}.
     *
     * @throws IllegalArgumentException when the relay would refuse the target ({@code bad-request})
     */
    public static Request plainHttp(String absoluteUri) {
        return http(AbsoluteUri.parse(absoluteUri).authority());
    }

    public static Request forward(int port) {
        return new Request(Kind.FORWARD, "", port);
    }

    /** The target as given, or {@code :port} for a forward. */
    public String shown() {
        return kind == Kind.FORWARD ? "forward:" + forwardPort : target;
    }
}

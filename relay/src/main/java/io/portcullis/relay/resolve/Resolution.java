package io.portcullis.relay.resolve;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * What a name resolved to.
 *
 * @param addresses in answer order; non-empty exactly when {@code status} is {@link Status#RESOLVED}
 * @param detail one line on what happened
 */
public record Resolution(Status status, List<InetAddress> addresses, String detail) {

    /** How resolution ended. */
    public enum Status {
        RESOLVED,
        /** The name does not exist, or the servers failed or refused. */
        FAILED,
        /** No answer within the DNS timeout. */
        TIMEOUT,
        /**
         * No server could be sent the question: nothing holds a local server's port, or the
         * network to a server is unreachable.
         */
        UNREACHABLE,
        /** The name exists but has no A or AAAA record. */
        EMPTY
    }

    public Resolution {
        Objects.requireNonNull(status, "status");
        addresses = List.copyOf(addresses);
        Objects.requireNonNull(detail, "detail");
        if ((status == Status.RESOLVED) == addresses.isEmpty()) {
            throw new IllegalArgumentException(
                    "addresses: " + addresses + " (expected: non-empty exactly when resolved)");
        }
    }

    public static Resolution resolved(List<InetAddress> addresses) {
        return new Resolution(Status.RESOLVED, addresses, "resolved");
    }

    public static Resolution failed(Status status, String detail) {
        return new Resolution(status, List.of(), detail);
    }
}

package io.portcullis.relay.resolve;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * What a name resolved to.
 *
 * @param addresses in answer order; non-empty exactly when {@code outcome} is {@link Outcome#RESOLVED}
 * @param detail one line on what happened
 */
public record Resolution(Outcome outcome, List<InetAddress> addresses, String detail) {

    /** How resolution ended. */
    public enum Outcome {
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
        Objects.requireNonNull(outcome, "outcome");
        addresses = List.copyOf(addresses);
        Objects.requireNonNull(detail, "detail");
        if ((outcome == Outcome.RESOLVED) == addresses.isEmpty()) {
            throw new IllegalArgumentException(
                    "addresses: " + addresses + " (expected: non-empty exactly when resolved)");
        }
    }

    public static Resolution resolved(List<InetAddress> addresses) {
        return new Resolution(Outcome.RESOLVED, addresses, "resolved");
    }

    public static Resolution failed(Outcome outcome, String detail) {
        return new Resolution(outcome, List.of(), detail);
    }
}

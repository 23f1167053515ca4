package io.portcullis.relay.ops;

import io.portcullis.relay.accept.Descriptors;
import io.portcullis.relay.checks.Checks;
import java.time.Duration;

/**
 * How much an operator's listener (the metrics listener, the daemon's control socket) lets its
 * clients hold (SPEC R5, R43): at most {@code connections} open at once, each carrying one request
 * and its answer ({@link ConnectionGate}), and {@code deadline} from the connection's accept to the
 * complete request, and again from the answer's first write to its last byte sent. Each byte does
 * not reset it, so a client that trickles its request, or reads nothing of its answer, is closed
 * all the same.
 *
 * @param connections 1 to {@link Descriptors#LISTENER_CONNECTIONS}, which the relay's descriptor
 *     budget keeps apart for each listener
 */
public record ListenerLimits(int connections, Duration deadline) {
    /** The metrics listener's: a scrape or a probe is one short request (Prometheus waits 10 s by default). */
    public static final ListenerLimits METRICS =
            new ListenerLimits(Descriptors.LISTENER_CONNECTIONS, Duration.ofSeconds(10));

    /** The control socket's: a policy is a few KiB, sent by a program of the daemon's own uid. */
    public static final ListenerLimits CONTROL =
            new ListenerLimits(Descriptors.LISTENER_CONNECTIONS, Duration.ofSeconds(30));

    public ListenerLimits {
        if (connections < 1 || connections > Descriptors.LISTENER_CONNECTIONS) {
            throw new IllegalArgumentException(
                    "connections: " + connections + " (expected: 1-" + Descriptors.LISTENER_CONNECTIONS + ")");
        }
        Checks.positive("deadline", deadline);
    }
}

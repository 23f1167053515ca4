package io.portcullis.relay.decisionlog;

import io.portcullis.relay.observe.Decision;
import io.portcullis.relay.policy.DenyCode;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The end line of a connection whose decision line was written when it reached its target (an
 * {@code open} {@link Decision}): what it carried and how it ended, under the same spawn and
 * connection id (SPEC R17). The component names are the JSON field names.
 *
 * @param time when the connection ended, ISO-8601 UTC
 * @param kind always {@code end}, so a reader tells it from a decision line
 * @param verdict as the connection ended: {@code allow}, or a refusal or failure after its target
 *     answered (the first bytes, the exchange)
 * @param reason as the decision line's, for the verdict and code as they ended
 * @param durationMillis from accept to close
 */
record Ended(
        Instant time,
        String spawn,
        long connection,
        String kind,
        Optional<String> target,
        Decision.Result verdict,
        Optional<DenyCode> code,
        String reason,
        long bytesUp,
        long bytesDown,
        long durationMillis,
        Optional<Decision.End> end) {
    static final String KIND = "end";

    Ended {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(spawn, "spawn");
        if (!KIND.equals(kind)) {
            throw new IllegalArgumentException("kind: " + kind + " (expected: end)");
        }
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(end, "end");
    }

    /** The end line of {@code decision}, as it stands when its connection ended. */
    static Ended of(Decision decision) {
        return new Ended(
                decision.time().plusMillis(decision.durationMillis()),
                decision.spawn(),
                decision.connection(),
                KIND,
                decision.target(),
                decision.verdict(),
                decision.code(),
                decision.reason(),
                decision.bytesUp(),
                decision.bytesDown(),
                decision.durationMillis(),
                decision.end());
    }
}

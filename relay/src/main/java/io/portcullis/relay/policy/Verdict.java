package io.portcullis.relay.policy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/** The answer for one connection: allow and dial exactly these addresses, or deny with a code. */
public sealed interface Verdict permits Verdict.Allow, Verdict.Deny {

    /** Every address the target resolved to (or its literal), in answer order; may be empty. */
    List<InetAddress> resolved();

    /**
     * Allowed: dial {@code dial} in order, the next on failure, and nothing else.
     *
     * @param detail one line on why (which entry or shape allowed it)
     */
    record Allow(List<InetSocketAddress> dial, List<InetAddress> resolved, String detail) implements Verdict {
        public Allow {
            dial = List.copyOf(dial);
            resolved = List.copyOf(resolved);
            Objects.requireNonNull(detail, "detail");
            if (dial.isEmpty()) {
                throw new IllegalArgumentException("dial: [] (expected: at least one checked address)");
            }
        }
    }

    /** Refused with a stable code and one line of detail. */
    record Deny(DenyCode code, String detail, List<InetAddress> resolved) implements Verdict {
        public Deny {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(detail, "detail");
            resolved = List.copyOf(resolved);
        }

        public Deny(DenyCode code, String detail) {
            this(code, detail, List.of());
        }
    }
}

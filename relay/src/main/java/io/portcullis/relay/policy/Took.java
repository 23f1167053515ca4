package io.portcullis.relay.policy;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * How long the world's parts took for one decision (SPEC R17's DNS time, and the owner check's):
 * each empty when the decision did not ask it. A cached DNS answer took what the cache took.
 *
 * @param dnsNanos from the query to its answer
 * @param ownerNanos from the first owner question to the last answer
 */
public record Took(OptionalLong dnsNanos, OptionalLong ownerNanos) {
    /** A decision that asked neither (a refusal by the rules alone, a literal address off this host). */
    public static final Took NOTHING = new Took(OptionalLong.empty(), OptionalLong.empty());

    public Took {
        Objects.requireNonNull(dnsNanos, "dnsNanos");
        Objects.requireNonNull(ownerNanos, "ownerNanos");
        if (dnsNanos.orElse(0) < 0 || ownerNanos.orElse(0) < 0) {
            throw new IllegalArgumentException(
                    "dnsNanos/ownerNanos: " + dnsNanos + "/" + ownerNanos + " (expected: >= 0 or empty)");
        }
    }
}

package io.portcullis.relay.handoff;

import java.io.IOException;
import java.util.Objects;

/**
 * How a spawn's hand-over ends when the relay refused it ({@code bad-handoff}, SPEC R4): the spawn
 * socket was taken and removed, so the spawn can never be handed over again.
 */
public final class HandoffRefused extends IOException {
    private static final long serialVersionUID = 1L;

    private final String reason;

    HandoffRefused(String reason) {
        super("bad-handoff: " + Objects.requireNonNull(reason, "reason"));
        this.reason = reason;
    }

    /** Why, as the entry was answered. */
    public String reason() {
        return reason;
    }
}

package io.portcullis.owner;

import java.util.Objects;
import java.util.Optional;

/**
 * The owner check's answer: allowed, or refused with a code; always with the evidence it saw.
 *
 * @param code why it is refused; empty when allowed
 * @param detail one line for the operator; never a secret
 */
public record OwnerAnswer(Optional<OwnerCode> code, String detail, OwnerEvidence evidence) {

    public OwnerAnswer {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(evidence, "evidence");
    }

    /** Whether the owner check lets the connection through. */
    public boolean allowed() {
        return code.isEmpty();
    }

    public static OwnerAnswer allow(String detail, OwnerEvidence evidence) {
        return new OwnerAnswer(Optional.empty(), detail, evidence);
    }

    public static OwnerAnswer deny(OwnerCode code, String detail, OwnerEvidence evidence) {
        return new OwnerAnswer(Optional.of(code), detail, evidence);
    }
}

package io.portcullis.owner;

import java.util.Objects;

/**
 * The owner check's answer: allowed, or refused with a code; always with the evidence it saw.
 *
 * @param code null when allowed
 * @param detail one line for the operator; never a secret
 */
public record OwnerAnswer(boolean allowed, OwnerCode code, String detail, OwnerEvidence evidence) {

    public OwnerAnswer {
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(evidence, "evidence");
        if (allowed != (code == null)) {
            throw new IllegalArgumentException("code: " + code + " (expected: null exactly when allowed)");
        }
    }

    public static OwnerAnswer allow(String detail, OwnerEvidence evidence) {
        return new OwnerAnswer(true, null, detail, evidence);
    }

    public static OwnerAnswer deny(OwnerCode code, String detail, OwnerEvidence evidence) {
        return new OwnerAnswer(false, Objects.requireNonNull(code, "code"), detail, evidence);
    }
}

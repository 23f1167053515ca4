package io.portcullis.owner;

import java.util.Objects;

/** One rule's refusal: the stable code and a line for the operator. */
record Refusal(OwnerCode code, String detail) {
    Refusal {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(detail, "detail");
    }
}

package io.portcullis.owner;

import java.util.concurrent.CompletableFuture;

/**
 * Answers whose listening socket would answer a connection to an address and port of this host
 * (SPEC R30-R36). Implementations never block the caller: the work runs on their own executor.
 * Every failure completes the future with a refusal ({@link OwnerCode#ERROR} or
 * {@link OwnerCode#DOCKER_DOWN}), never exceptionally and never with a pass.
 */
@FunctionalInterface
public interface OwnerCheck {

    CompletableFuture<OwnerAnswer> check(OwnerQuery query);

    /** A check that refuses everything with {@link OwnerCode#ERROR}: the fail-closed stand-in. */
    static OwnerCheck failClosed(String why) {
        return query -> CompletableFuture.completedFuture(OwnerAnswer.deny(OwnerCode.ERROR, why, OwnerEvidence.NONE));
    }
}

package io.portcullis.owner;

import io.portcullis.owner.docker.DockerNetworks;
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

    /**
     * Where containers of this host's Docker networks may have addresses, as last known (SPEC R32):
     * the relay sends a listed address there to {@link #check} even when it is not this host's own.
     * Never blocks. A check without a Docker view knows none.
     */
    default DockerNetworks dockerNetworks() {
        return DockerNetworks.NONE;
    }

    /** A check that refuses everything with {@link OwnerCode#ERROR}: the fail-closed stand-in. */
    static OwnerCheck failClosed(String why) {
        return query -> CompletableFuture.completedFuture(OwnerAnswer.deny(OwnerCode.ERROR, why, OwnerEvidence.NONE));
    }
}

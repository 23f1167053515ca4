package io.portcullis.relay.decide;

import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Decides one connection of one spawn. The real one is the policy's {@code PolicyJudge}; its future
 * never completes exceptionally, and the relay treats an exception as a refusal anyway.
 */
@FunctionalInterface
public interface Judge {

    CompletableFuture<Verdict> decide(SpawnPolicy spawn, Request request);

    /**
     * As {@link #decide(SpawnPolicy, Request)}, noting in {@code times} how long its DNS lookup and
     * owner check took, for the decision line. A judge of an embedder's that does not say notes
     * nothing, and the line's timings are null.
     */
    default CompletableFuture<Verdict> decide(SpawnPolicy spawn, Request request, Times times) {
        return decide(spawn, request);
    }

    /**
     * What the spawn's {@code shadow} policy would answer for {@code request}, given the enforced
     * {@code verdict} (SPEC R26); empty when it cannot be told without a lookup of its own. A judge
     * of an embedder's that does not say is never asked for more: empty.
     */
    default CompletableFuture<Optional<Verdict>> shadow(SpawnPolicy shadow, Request request, Verdict verdict) {
        return CompletableFuture.completedFuture(Optional.empty());
    }
}

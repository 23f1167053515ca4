package io.portcullis.relay;

import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import java.util.concurrent.CompletableFuture;

/**
 * Decides one connection of one spawn. The real one is the policy's {@code Decider}; its future
 * never completes exceptionally, and the relay treats an exception as a refusal anyway.
 */
@FunctionalInterface
public interface Judge {

    CompletableFuture<Verdict> decide(SpawnPolicy spawn, Request request);
}

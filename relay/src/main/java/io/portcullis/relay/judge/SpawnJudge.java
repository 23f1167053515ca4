package io.portcullis.relay.judge;

import io.portcullis.relay.decide.Judge;
import io.portcullis.relay.decide.Times;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Took;
import io.portcullis.relay.policy.Verdict;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A configuration generation's judge bound to one revision of one spawn's policy: what the kinds
 * and the namespace's DNS ask, once per request. A connection keeps the one it was accepted with,
 * whatever reloads or changes of the policy come after. With a shadow policy (SPEC R26), the answer carries the
 * shadow's verdict too, decided on the enforced decision's own addresses; the shadow never changes
 * the verdict, and its failure is an unknown.
 */
public final class SpawnJudge {
    private final Judge judge;
    private final SpawnPolicy policy;
    private final long generation;
    private final long revision;

    /**
     * @param generation the number of the configuration generation whose judge {@code judge} is
     * @param revision the revision of the spawn's policy that {@code policy} is: 1 when the spawn
     *     opened, one more at each change in place
     */
    public SpawnJudge(Judge judge, SpawnPolicy policy, long generation, long revision) {
        this.judge = Objects.requireNonNull(judge, "judge");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.generation = generation;
        this.revision = revision;
    }

    public SpawnPolicy policy() {
        return policy;
    }

    /** The configuration generation this judge decides with, for the decision line. */
    public long generation() {
        return generation;
    }

    /** The revision of the spawn's policy this judge decides with, for the decision line. */
    public long revision() {
        return revision;
    }

    /**
     * The verdict on {@code request}, with the shadow's beside it. Completes exceptionally only
     * when an embedder's judge does; the relay's own never fails that way (a failure is a refusal).
     */
    public CompletableFuture<Judged> decide(Request request) {
        Times times = new Times();
        CompletableFuture<Verdict> enforced;
        try {
            enforced = judge.decide(policy, request, times);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        Optional<SpawnPolicy> shadow = policy.shadow();
        if (shadow.isEmpty()) {
            return enforced.thenApply(verdict -> Judged.alone(verdict, times.took()));
        }
        return enforced.thenCompose(verdict -> shadowOf(shadow.get(), request, verdict, times.took()));
    }

    private CompletableFuture<Judged> shadowOf(SpawnPolicy shadow, Request request, Verdict verdict, Took took) {
        CompletableFuture<Optional<Verdict>> said;
        try {
            said = judge.shadow(shadow, request, verdict);
        } catch (RuntimeException e) {
            said = CompletableFuture.failedFuture(e);
        }
        return said.handle((answer, failed) -> new Judged(
                verdict,
                failed != null || answer.isEmpty() ? Judged.Shadow.UNKNOWN : new Judged.Said(answer.get()),
                took));
    }
}

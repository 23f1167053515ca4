package io.portcullis.relay.judge;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerEvidence;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.relay.decide.Judge;
import io.portcullis.relay.decide.Times;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.Request;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.resolve.Resolution;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.OwnAddresses;
import io.portcullis.relay.rules.Rules;
import io.portcullis.relay.rules.Step;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Decides one connection: the pure {@link Rules} in their order, one resolution when the target
 * could still be allowed, and the owner check for addresses on this host and in its Docker networks
 * (as the owner check last knew them, read once per decision). The future never
 * completes exceptionally: any failure is a refusal (fail closed).
 */
public final class PolicyJudge implements Judge {
    private final Rules rules;
    private final Resolver resolver;
    private final Supplier<OwnAddresses> own;
    private final OwnerCheck owner;

    /**
     * @param own the current snapshot of this host's own addresses, read once per decision
     */
    public PolicyJudge(Rules rules, Resolver resolver, Supplier<OwnAddresses> own, OwnerCheck owner) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.own = Objects.requireNonNull(own, "own");
        this.owner = Objects.requireNonNull(owner, "owner");
    }

    @Override
    public CompletableFuture<Verdict> decide(SpawnPolicy spawn, Request request) {
        return decide(spawn, request, new Times());
    }

    @Override
    public CompletableFuture<Verdict> decide(SpawnPolicy spawn, Request request, Times times) {
        try {
            Step step = rules.plan(spawn, request);
            if (!(step instanceof Step.Resolve plan)) {
                return finish(spawn, step, times);
            }
            if (!plan.needsDns()) {
                return finish(
                        spawn,
                        rules.onAddresses(spawn, plan, plan.literal(), own.get(), owner.dockerNetworks()),
                        times);
            }
            // Refused whatever the name resolves to: no query for it.
            Optional<Verdict.Deny> unresolved = rules.unresolvedOwnNames(plan, own.get());
            if (unresolved.isPresent()) {
                return CompletableFuture.completedFuture(unresolved.get());
            }
            long asked = System.nanoTime();
            CompletableFuture<Resolution> resolution =
                    resolver.resolve(plan.target().host());
            if (resolution.isDone() && !resolution.isCompletedExceptionally()) {
                // A cached answer: finish on this thread without chaining more futures.
                times.dnsSince(asked);
                return afterDns(spawn, plan, resolution.join(), times);
            }
            return resolution
                    .thenCompose(done -> {
                        times.dnsSince(asked);
                        return afterDns(spawn, plan, done, times);
                    })
                    .exceptionally(PolicyJudge::internal);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(internal(e));
        }
    }

    /**
     * What {@code shadow} would answer for {@code request} (SPEC R26), given the verdict the
     * enforced policy gave it: on the enforced decision's own addresses, so the shadow never sends
     * a DNS query of its own (it could carry a name out that the enforced policy never looks up).
     * Empty when the shadow would need a lookup that the enforced decision did not make. Never
     * completes exceptionally.
     */
    @Override
    public CompletableFuture<Optional<Verdict>> shadow(SpawnPolicy shadow, Request request, Verdict enforced) {
        try {
            Step step = rules.plan(shadow, request);
            if (!(step instanceof Step.Resolve plan)) {
                return finish(shadow, step, new Times()).thenApply(Optional::of);
            }
            if (!plan.needsDns()) {
                return finish(
                                shadow,
                                rules.onAddresses(shadow, plan, plan.literal(), own.get(), owner.dockerNetworks()),
                                new Times())
                        .thenApply(Optional::of);
            }
            Optional<Verdict.Deny> unresolved = rules.unresolvedOwnNames(plan, own.get());
            if (unresolved.isPresent()) {
                return CompletableFuture.completedFuture(Optional.of(unresolved.get()));
            }
            if (enforced instanceof Verdict.Deny deny && DNS_FAILURES.contains(deny.code())) {
                return CompletableFuture.completedFuture(Optional.of(deny));
            }
            if (enforced.resolved().isEmpty()) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            return finish(
                            shadow,
                            rules.onAddresses(shadow, plan, enforced.resolved(), own.get(), owner.dockerNetworks()),
                            new Times())
                    .thenApply(Optional::of);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Optional.of(internal(e)));
        }
    }

    private static final Set<DenyCode> DNS_FAILURES =
            EnumSet.of(DenyCode.DNS_FAILED, DenyCode.DNS_TIMEOUT, DenyCode.DNS_EMPTY, DenyCode.DNS_UNREACHABLE);

    private CompletableFuture<Verdict> afterDns(
            SpawnPolicy spawn, Step.Resolve plan, Resolution resolution, Times times) {
        DenyCode failure = switch (resolution.status()) {
            case RESOLVED -> null;
            case FAILED -> DenyCode.DNS_FAILED;
            case TIMEOUT -> DenyCode.DNS_TIMEOUT;
            case EMPTY -> DenyCode.DNS_EMPTY;
            case UNREACHABLE -> DenyCode.DNS_UNREACHABLE;
        };
        if (failure != null) {
            return CompletableFuture.completedFuture(new Verdict.Deny(failure, resolution.detail()));
        }
        return finish(
                spawn,
                rules.onAddresses(spawn, plan, resolution.addresses(), own.get(), owner.dockerNetworks()),
                times);
    }

    private CompletableFuture<Verdict> finish(SpawnPolicy spawn, Step step, Times times) {
        return switch (step) {
            case Step.Decided decided -> CompletableFuture.completedFuture(decided.verdict());
            case Step.AskOwner ask -> askOwner(ask, times);
            case Step.Resolve resolve ->
                CompletableFuture.completedFuture(internal(new IllegalStateException(
                        "judge asked to resolve " + resolve.target() + " again for " + spawn.id())));
        };
    }

    private CompletableFuture<Verdict> askOwner(Step.AskOwner ask, Times times) {
        long asked = System.nanoTime();
        List<CompletableFuture<OwnerAnswer>> answers = new ArrayList<>();
        for (OwnerQuery query : ask.queries()) {
            CompletableFuture<OwnerAnswer> answer;
            try {
                answer = Objects.requireNonNull(owner.check(query), "owner check future");
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            answers.add(answer);
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .handle((ignored, failure) -> {
                    times.ownerSince(asked);
                    if (failure != null) {
                        return new Verdict.Deny(
                                DenyCode.OWNER_ERROR,
                                "the owner check failed: " + failure,
                                ask.allow().resolved(),
                                OwnerEvidence.NONE);
                    }
                    return Rules.afterOwner(
                            ask, answers.stream().map(CompletableFuture::join).toList());
                });
    }

    private static Verdict internal(Throwable failure) {
        return new Verdict.Deny(DenyCode.INTERNAL_ERROR, "the decision failed: " + failure);
    }
}

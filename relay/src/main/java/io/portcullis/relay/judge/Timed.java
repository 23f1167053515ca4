package io.portcullis.relay.judge;

import io.portcullis.owner.OwnerAnswer;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerQuery;
import io.portcullis.owner.docker.DockerNetworks;
import io.portcullis.relay.observe.Histogram;
import io.portcullis.relay.resolve.Resolver;
import java.util.concurrent.CompletableFuture;

/** The resolver and the owner check with each answer's latency observed (SPEC R40). */
public final class Timed {
    private Timed() {}

    /** {@code resolver}, each lookup's time observed in {@code latency}. */
    public static Resolver resolver(Resolver resolver, Histogram latency) {
        return name -> {
            long start = System.nanoTime();
            return resolver.resolve(name).whenComplete((answer, error) -> latency.observe(System.nanoTime() - start));
        };
    }

    /** {@code check}, timed, passing its Docker networks on: a lambda would know none (R32). */
    public static OwnerCheck ownerCheck(OwnerCheck check, Histogram latency) {
        return new OwnerCheck() {
            @Override
            public CompletableFuture<OwnerAnswer> check(OwnerQuery query) {
                long start = System.nanoTime();
                return check.check(query).whenComplete((answer, error) -> latency.observe(System.nanoTime() - start));
            }

            @Override
            public DockerNetworks dockerNetworks() {
                return check.dockerNetworks();
            }
        };
    }
}

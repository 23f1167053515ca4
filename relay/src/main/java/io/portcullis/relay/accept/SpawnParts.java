package io.portcullis.relay.accept;

import io.netty.channel.group.ChannelGroup;
import io.portcullis.relay.decide.SpawnJudge;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.generation.Generation;
import io.portcullis.relay.policy.Rate;
import io.portcullis.relay.policy.SpawnPolicy;
import java.util.Objects;
import java.util.Optional;

/**
 * What one spawn's sockets share: its policy, its open connections, its budget, its
 * new-connection rate, its door token, and its judge, bound once per configuration generation.
 */
public final class SpawnParts {
    private final SpawnPolicy policy;
    private final ChannelGroup connections;
    private final Budgets budget = new Budgets();
    private final Rate rate = new Rate();
    private final Optional<DoorToken> token;
    /** The judge bound for the generation last asked for; any thread may bind the next one. */
    private volatile Optional<SpawnJudge> bound = Optional.empty();

    public SpawnParts(SpawnPolicy policy, ChannelGroup connections, Optional<DoorToken> token) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.connections = Objects.requireNonNull(connections, "connections");
        this.token = Objects.requireNonNull(token, "token");
    }

    public SpawnPolicy policy() {
        return policy;
    }

    public ChannelGroup connections() {
        return connections;
    }

    Budgets budget() {
        return budget;
    }

    Rate rate() {
        return rate;
    }

    Optional<DoorToken> token() {
        return token;
    }

    /** {@code generation}'s judge bound to this spawn: made once per generation, then reused. */
    public SpawnJudge judge(Generation generation) {
        Optional<SpawnJudge> last = bound;
        if (last.isPresent() && last.get().generation() == generation.number()) {
            return last.get();
        }
        SpawnJudge judge = new SpawnJudge(generation.judge(), policy, generation.number());
        bound = Optional.of(judge);
        return judge;
    }
}

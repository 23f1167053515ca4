package io.portcullis.relay.accept;

import io.netty.channel.group.ChannelGroup;
import io.portcullis.relay.door.DoorToken;
import io.portcullis.relay.generation.Generation;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.rules.Rate;
import java.util.Objects;
import java.util.Optional;

/**
 * What one spawn's sockets share: its policy (the revision in effect for new connections), its
 * open connections, its traffic, its budget, its new-connection rate, its door token, and its
 * judge, bound once per configuration generation and policy revision.
 */
public final class SpawnParts {
    /** One revision of the spawn's policy: 1 when the spawn opened, one more at each change in place. */
    private record Revision(SpawnPolicy policy, long number) {}

    private volatile Revision current;
    private final ChannelGroup connections;
    private final Traffic traffic;
    private final Budgets budget = new Budgets();
    private final Rate rate = new Rate();
    private final Optional<DoorToken> token;
    /** The judge bound for the generation and revision last asked for; any thread may bind the next one. */
    private volatile Optional<SpawnJudge> bound = Optional.empty();

    public SpawnParts(SpawnPolicy policy, ChannelGroup connections, Optional<DoorToken> token, Traffic traffic) {
        this.current = new Revision(Objects.requireNonNull(policy, "policy"), 1);
        this.connections = Objects.requireNonNull(connections, "connections");
        this.token = Objects.requireNonNull(token, "token");
        this.traffic = Objects.requireNonNull(traffic, "traffic");
    }

    /** The policy new connections are judged with. */
    public SpawnPolicy policy() {
        return current.policy();
    }

    /** The revision of {@link #policy()}. */
    public long revision() {
        return current.number();
    }

    /**
     * Puts {@code next} in effect for the connections accepted from now on; the open ones keep the
     * judge they were accepted with. The caller has checked that {@code next} keeps what cannot
     * change (the spawn's id and sockets).
     *
     * @return the new revision's number
     */
    public synchronized long revise(SpawnPolicy next) {
        Revision revised = new Revision(Objects.requireNonNull(next, "next"), current.number() + 1);
        current = revised;
        return revised.number();
    }

    public ChannelGroup connections() {
        return connections;
    }

    /** What the spawn's connections carried, counted as it moves. */
    public Traffic traffic() {
        return traffic;
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

    /**
     * {@code generation}'s judge bound to this spawn's policy in effect: made once per generation
     * and revision, then reused.
     */
    public SpawnJudge judge(Generation generation) {
        Revision revision = current;
        Optional<SpawnJudge> last = bound;
        if (last.isPresent()
                && last.get().generation() == generation.number()
                && last.get().revision() == revision.number()) {
            return last.get();
        }
        SpawnJudge judge =
                new SpawnJudge(generation.judge(), revision.policy(), generation.number(), revision.number());
        bound = Optional.of(judge);
        return judge;
    }
}

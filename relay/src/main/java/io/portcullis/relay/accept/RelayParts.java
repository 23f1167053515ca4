package io.portcullis.relay.accept;

import io.portcullis.relay.generation.Generation;
import io.portcullis.relay.observe.DecisionSink;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;

/**
 * The parts of the relay that every spawn's connections use.
 *
 * @param current the configuration generation that new connections take
 * @param budget the relay's connection budget
 * @param ids the source of connection ids
 * @param spawnsOpen how many spawns are open, for the budgets' fair share
 */
public record RelayParts(
        AtomicReference<Generation> current,
        Budgets budget,
        DecisionSink decisions,
        InstantSource clock,
        AtomicLong ids,
        IntSupplier spawnsOpen) {
    public RelayParts {
        Objects.requireNonNull(current, "current");
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(decisions, "decisions");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(spawnsOpen, "spawnsOpen");
    }
}

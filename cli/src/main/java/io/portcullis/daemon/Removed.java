package io.portcullis.daemon;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The spawns that the relay removed because their hand-over was refused (docs/daemon.md), each
 * with why, so that the control API can say so: kept until the id is opened again, for
 * {@link #KEPT} at most, and no more than {@link #MOST} of them (the oldest goes first).
 */
final class Removed {
    static final Duration KEPT = Duration.ofMinutes(10);
    static final int MOST = 256;

    /** One removed spawn: the deny code of its hand-over, the reason the entry was answered, and when. */
    record Spawn(String id, String code, String reason, Instant at) {
        Spawn {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(at, "at");
        }
    }

    private final InstantSource clock;
    private final Map<String, Spawn> spawns = new LinkedHashMap<>();

    Removed(InstantSource clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    synchronized void add(String id, String code, String reason) {
        spawns.remove(id);
        spawns.put(id, new Spawn(id, code, reason, clock.instant()));
        if (spawns.size() > MOST) {
            spawns.remove(spawns.keySet().iterator().next());
        }
    }

    /** The spawn {@code id} if it was removed within {@link #KEPT} and not opened again since. */
    synchronized Optional<Spawn> get(String id) {
        Spawn spawn = spawns.get(id);
        if (spawn != null && spawn.at().plus(KEPT).isBefore(clock.instant())) {
            spawns.remove(id);
            return Optional.empty();
        }
        return Optional.ofNullable(spawn);
    }

    /** The id is opened again: what was kept of it no longer speaks for it. */
    synchronized void forget(String id) {
        spawns.remove(id);
    }
}

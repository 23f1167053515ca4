package io.portcullis.relay;

import io.netty.channel.Channel;
import io.portcullis.relay.policy.DenyCode;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Open-connection budgets (SPEC R16): one for the whole relay, one per spawn. A connection holds
 * its place in both from accept until its channel closes.
 */
final class Budgets {
    private final AtomicInteger open;
    private final int max;

    Budgets(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max: " + max + " (expected: >= 1)");
        }
        this.open = new AtomicInteger();
        this.max = max;
    }

    /**
     * Takes a place in this spawn's budget and the relay's for {@code channel}; returns the code
     * of the budget that is full, or null when both had room.
     */
    static DenyCode acquire(Channel channel, Budgets spawn, Budgets relay) {
        if (!spawn.tryTake()) {
            return DenyCode.LIMIT_SPAWN;
        }
        if (!relay.tryTake()) {
            spawn.open.decrementAndGet();
            return DenyCode.LIMIT_RELAY;
        }
        channel.closeFuture().addListener(f -> {
            spawn.open.decrementAndGet();
            relay.open.decrementAndGet();
        });
        return null;
    }

    private boolean tryTake() {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return false;
        }
        return true;
    }

    int open() {
        return open.get();
    }
}

package io.portcullis.relay.generation;

import io.portcullis.relay.decide.Judge;
import io.portcullis.relay.door.DoorKind;
import io.portcullis.relay.forward.ForwardKind;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.proxy.ProxyKind;
import java.util.List;
import java.util.Objects;

/**
 * One host configuration in effect (SPEC R2): what a new connection is judged and limited with.
 * A reload builds the next generation beside the current one and swaps it in; a connection keeps
 * the generation it started with until it ends.
 *
 * @param number 1 at start, one more at each reload that took effect
 * @param owned its leases on the parts it shares with other generations (resolver, own addresses,
 *     owner check), let go once retired
 */
public record Generation(
        long number,
        HostConfig host,
        Judge judge,
        ProxyKind proxy,
        ForwardKind forward,
        DoorKind door,
        List<AutoCloseable> owned) {

    public Generation {
        if (number < 1) {
            throw new IllegalArgumentException("number: " + number + " (expected: >= 1)");
        }
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(judge, "judge");
        Objects.requireNonNull(proxy, "proxy");
        Objects.requireNonNull(forward, "forward");
        Objects.requireNonNull(door, "door");
        owned = List.copyOf(owned);
    }

    public HostConfig.Limits limits() {
        return host.limits();
    }

    public long headerTimeoutMillis() {
        return host.limits().headerTimeout().toMillis();
    }
}

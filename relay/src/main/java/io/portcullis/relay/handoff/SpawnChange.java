package io.portcullis.relay.handoff;

import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Handoff;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a new policy for an open spawn may not change (SPEC R5): its id, and what its sockets are,
 * which its entry bound and handed over once (the proxy port, the forwards, the door's port, the
 * named entries and their addresses), with the door token's file and the peer uid, both fixed
 * when the token was written as the spawn opened. Everything else (the network, the other listed
 * entries, the door's routes and header, the shadow) may change. Pure.
 */
public final class SpawnChange {
    private static final String FIXED = "; a spawn's sockets are fixed when it opens";

    private SpawnChange() {}

    /** Every way {@code next} changes what {@code open} fixed, one line each; empty when it may replace it. */
    public static List<String> problems(SpawnPolicy open, SpawnPolicy next) {
        List<String> problems = new ArrayList<>();
        if (!next.id().equals(open.id())) {
            problems.add("id: \"" + next.id() + "\" (expected: \"" + open.id() + "\", the spawn's id)");
        }
        if (next.effectiveProxyPort() != open.effectiveProxyPort()) {
            problems.add("proxyPort: " + next.effectiveProxyPort() + " (expected: " + open.effectiveProxyPort()
                    + ", the proxy port its entry binds" + FIXED + ")");
        }
        Set<Integer> forwards = forwards(open);
        if (!forwards(next).equals(forwards)) {
            problems.add("hosts: loopback entries on ports " + forwards(next) + " (expected: ports " + forwards
                    + ", the forwards its entry binds" + FIXED + ")");
        }
        List<String> named = named(open);
        if (!named(next).equals(named)) {
            problems.add("hosts: tcp entries reached by name " + named(next) + " (expected: " + named
                    + ", the named sockets its entry binds" + FIXED + ")");
        }
        OptionalInt door = open.door().map(d -> OptionalInt.of(d.port())).orElse(OptionalInt.empty());
        OptionalInt nextDoor = next.door().map(d -> OptionalInt.of(d.port())).orElse(OptionalInt.empty());
        if (!nextDoor.equals(door)) {
            problems.add("door.port: " + text(nextDoor) + " (expected: " + text(door) + ", the door its entry binds"
                    + FIXED + ")");
        }
        Optional<String> token = open.door().map(d -> d.tokenFile().toString());
        Optional<String> nextToken = next.door().map(d -> d.tokenFile().toString());
        if (door.equals(nextDoor) && !nextToken.equals(token)) {
            problems.add("door.tokenFile: \"" + nextToken.orElse("") + "\" (expected: \"" + token.orElse("")
                    + "\", where the door token was written when the spawn opened)");
        }
        if (!next.peerUid().equals(open.peerUid())) {
            problems.add("peerUid: " + text(next.peerUid()) + " (expected: " + text(open.peerUid())
                    + ", the uid the spawn's socket and door token are for)");
        }
        return List.copyOf(problems);
    }

    private static Set<Integer> forwards(SpawnPolicy policy) {
        Set<Integer> ports = new TreeSet<>();
        policy.hosts().stream()
                .filter(SpawnPolicy.Entry::isForward)
                .forEach(entry -> ports.add(entry.target().port()));
        return ports;
    }

    /** Each named entry as its target and the socket it is reached on, in policy order. */
    private static List<String> named(SpawnPolicy policy) {
        return policy.named().stream()
                .map(named -> named.entry().target() + " on " + Handoff.text(named.address()))
                .toList();
    }

    private static String text(OptionalInt value) {
        return value.isPresent() ? String.valueOf(value.getAsInt()) : "none";
    }
}

package io.portcullis.daemon;

import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.ListenFds;
import io.portcullis.wire.Receiver;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a start found in the descriptor store and the state directory, sorted (SPEC R44): the whole
 * spawns (a state whose policy reads, and a descriptor for every socket it lists), and the parts
 * that are no spawn: a state without all its descriptors, a state that does not read, descriptors
 * with no state, and descriptors under a name this daemon does not write. Pure: it opens, closes
 * and sends nothing.
 */
record StoredSpawns(List<Whole> whole, List<Part> parts) {

    /** A spawn to serve again: its policy and state, and its descriptors in the order of the state's sockets. */
    record Whole(String id, SpawnPolicy policy, SpawnState state, List<Receiver.Held> held) {}

    /**
     * What cannot be served: the names to remove from the store, the descriptors to close and why;
     * {@code id} is empty for names that name no spawn.
     */
    record Part(String id, List<String> names, List<Integer> fds, String why) {}

    static StoredSpawns sort(List<ListenFds.Passed> passed, List<StateDirectory.Entry> states) {
        Map<String, Map<StoreName, Integer>> bySpawn = new LinkedHashMap<>();
        List<Part> parts = new ArrayList<>();
        for (ListenFds.Passed one : passed) {
            Optional<StoreName> name = StoreName.parse(one.name());
            if (name.isEmpty()) {
                parts.add(new Part(
                        "",
                        List.of(one.name()),
                        List.of(one.fd()),
                        "the descriptor store holds a descriptor named " + printable(one.name())
                                + " (expected: <spawn>/<kind>/<address>/<port>)"));
                continue;
            }
            Integer first = bySpawn.computeIfAbsent(name.get().spawn(), id -> new LinkedHashMap<>())
                    .putIfAbsent(name.get(), one.fd());
            if (first != null) {
                parts.add(new Part(
                        name.get().spawn(),
                        List.of(),
                        List.of(one.fd()),
                        "the store holds " + name.get() + " twice (expected: once)"));
            }
        }
        List<Whole> whole = new ArrayList<>();
        for (StateDirectory.Entry entry : states) {
            Map<StoreName, Integer> fds = bySpawn.getOrDefault(entry.id(), Map.of());
            bySpawn.remove(entry.id());
            Sorted sorted = one(entry, fds);
            sorted.whole().ifPresent(whole::add);
            sorted.part().ifPresent(parts::add);
        }
        bySpawn.forEach((id, fds) -> parts.add(new Part(
                id,
                texts(fds.keySet()),
                List.copyOf(fds.values()),
                "its " + fds.size() + " descriptors have no state (expected: " + id
                        + ".json in the state directory)")));
        return new StoredSpawns(List.copyOf(whole), List.copyOf(parts));
    }

    private record Sorted(Optional<Whole> whole, Optional<Part> part) {}

    private static Sorted one(StateDirectory.Entry entry, Map<StoreName, Integer> fds) {
        String id = entry.id();
        List<StoreName> names = List.copyOf(fds.keySet());
        SpawnState state;
        SpawnPolicy policy;
        try {
            state = SpawnState.parse(entry.bytes());
            policy = SpawnPolicyJson.parse(
                    entry.file().toString(), state.policy().toString());
        } catch (IllegalArgumentException e) {
            return part(id, names, fds, "its state does not read: " + e.getMessage());
        } catch (ConfigException e) {
            return part(id, names, fds, "its policy does not read: " + String.join("; ", e.problems()));
        }
        if (!policy.id().equals(id)) {
            return part(id, names, fds, "its state holds the policy of " + policy.id() + " (expected: " + id + ")");
        }
        List<Receiver.Held> held = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (Handoff.Socket socket : state.sockets()) {
            Integer fd = fds.get(new StoreName(id, socket));
            if (fd == null) {
                missing.add(new StoreName(id, socket).text());
            } else {
                held.add(new Receiver.Held(socket, fd));
            }
        }
        if (!missing.isEmpty()) {
            List<StoreName> all = new ArrayList<>(names);
            state.names(id).stream().filter(name -> !all.contains(name)).forEach(all::add);
            return part(
                    id,
                    all,
                    fds,
                    "the descriptor store lacks " + String.join(", ", missing)
                            + " (expected: every socket its hand-over brought)");
        }
        if (held.size() != fds.size()) {
            List<StoreName> extra = names.stream()
                    .filter(name -> !state.sockets().contains(name.socket()))
                    .toList();
            return new Sorted(
                    Optional.of(new Whole(id, policy, state, held)),
                    Optional.of(new Part(
                            id,
                            texts(extra),
                            extra.stream().map(fds::get).toList(),
                            "the store holds sockets its state does not list: " + extra)));
        }
        return new Sorted(Optional.of(new Whole(id, policy, state, held)), Optional.empty());
    }

    private static Sorted part(String id, List<StoreName> names, Map<StoreName, Integer> fds, String why) {
        return new Sorted(Optional.empty(), Optional.of(new Part(id, texts(names), List.copyOf(fds.values()), why)));
    }

    private static List<String> texts(java.util.Collection<StoreName> names) {
        return names.stream().map(StoreName::text).toList();
    }

    private static String printable(String name) {
        return name.replaceAll("[^ -~]", "?");
    }
}

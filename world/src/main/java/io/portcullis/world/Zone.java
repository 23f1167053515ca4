package io.portcullis.world;

import io.netty.handler.codec.dns.DnsRecordType;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The names a {@link ZoneDnsServer} serves, changed by the test as it runs. Each name has a
 * sequence of answers: the n-th query of a record type gets the n-th answer (the last one repeats),
 * so a name's addresses can change between two resolutions, while the A and AAAA queries of one
 * resolution see the same step. Every query is counted per name and type, over UDP and TCP alike (the
 * TCP retry of a truncated answer is a query of its own, and takes the next step). Unknown names
 * are NXDOMAIN.
 */
public final class Zone {
    private record Key(String name, int type) {}

    private final Map<String, List<DnsAnswer>> names = new ConcurrentHashMap<>();
    private final Map<Key, AtomicInteger> counts = new ConcurrentHashMap<>();

    /** A zone that knows no name yet. */
    public Zone() {}

    /** Serves {@code sequence} for {@code name} from now on, and forgets the name's query counts. */
    public Zone set(String name, DnsAnswer... sequence) {
        if (sequence.length == 0) {
            throw new IllegalArgumentException("sequence: [] (expected: at least one answer)");
        }
        String key = normalize(name);
        names.put(key, List.of(sequence));
        counts.keySet().removeIf(k -> k.name().equals(key));
        return this;
    }

    /** Forgets every name and count. */
    public void clear() {
        names.clear();
        counts.clear();
    }

    /** How many queries of any type arrived for {@code name}. */
    public int queries(String name) {
        String key = normalize(name);
        return counts.entrySet().stream()
                .filter(e -> e.getKey().name().equals(key))
                .mapToInt(e -> e.getValue().get())
                .sum();
    }

    /** How many queries of {@code type} arrived for {@code name}. */
    public int queries(String name, DnsRecordType type) {
        AtomicInteger count = counts.get(new Key(normalize(name), type.intValue()));
        return count == null ? 0 : count.get();
    }

    /** Counts the query and returns the answer it gets. */
    DnsAnswer answer(String name, DnsRecordType type) {
        String key = normalize(name);
        int n = counts.computeIfAbsent(new Key(key, type.intValue()), k -> new AtomicInteger())
                .getAndIncrement();
        List<DnsAnswer> sequence = names.get(key);
        if (sequence == null) {
            return DnsAnswer.nxdomain();
        }
        return sequence.get(Math.min(n, sequence.size() - 1));
    }

    static String normalize(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.endsWith(".") ? lower.substring(0, lower.length() - 1) : lower;
    }
}

package io.portcullis.relay.handoff;

import io.portcullis.relay.checks.Checks;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Handoff.Kind;
import io.portcullis.wire.Receiver.Wanted;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The loopback sockets a spawn's entry binds: the proxy port (already moved up past the forwards
 * and the door, {@code SpawnPolicy.effectiveProxyPort()}), each forward, the door port (0 when the
 * spawn has no door), each named entry's synthetic address and port, and the DNS socket, UDP
 * 127.0.0.1:53 (SPEC R24). The hand-over must bring exactly these sockets (SPEC R4).
 */
public record SpawnPorts(int proxy, Set<Integer> forwards, int door, List<InetSocketAddress> named) {

    /** The namespace's DNS socket (SPEC R24). */
    public static final InetSocketAddress DNS = new InetSocketAddress(Handoff.IPV4_LOOPBACK, 53);

    public SpawnPorts {
        forwards = Set.copyOf(new TreeSet<>(forwards));
        named = List.copyOf(named);
        Checks.port("proxy", proxy);
        forwards.forEach(port -> Checks.port("forwards", port));
        if (door != 0) {
            Checks.port("door", door);
        }
        if (forwards.contains(proxy) || forwards.contains(door) || (door != 0 && door == proxy)) {
            throw new IllegalArgumentException("ports: proxy " + proxy + ", forwards " + forwards + ", door " + door
                    + " (expected: all different)");
        }
    }

    /**
     * The sockets the hand-over must bring: the proxy, forward and door ports on 127.0.0.1, and on
     * ::1 where the namespace has IPv6 (the entry binds both when it can, so ::1 may be missing but
     * nothing else may), each named entry's socket and the DNS socket.
     */
    public List<Wanted> wanted() {
        List<Wanted> wanted = new ArrayList<>();
        add(wanted, Kind.PROXY, proxy);
        sortedForwards().forEach(port -> add(wanted, Kind.FORWARD, port));
        if (door != 0) {
            add(wanted, Kind.DOOR, door);
        }
        named.forEach(address -> wanted.add(new Wanted(Kind.NAMED, address, true)));
        wanted.add(new Wanted(Kind.DNS, DNS, true));
        return List.copyOf(wanted);
    }

    private static void add(List<Wanted> wanted, Kind kind, int port) {
        wanted.add(new Wanted(kind, new InetSocketAddress(Handoff.IPV4_LOOPBACK, port), true));
        wanted.add(new Wanted(kind, new InetSocketAddress(Handoff.IPV6_LOOPBACK, port), false));
    }

    /** The forwards in ascending order. */
    public List<Integer> sortedForwards() {
        return new TreeSet<>(forwards).stream().toList();
    }
}

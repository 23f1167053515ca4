package io.portcullis.owner.kernel;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;

/** Which LISTEN sockets could answer a connection to one address (SPEC R30). Pure. */
public final class Answering {
    private Answering() {}

    /**
     * The listeners that could accept a connection to {@code target}: the exact address, the
     * wildcard of its family, for IPv4 also a dual-stack {@code ::} with V6ONLY off and a v4-mapped
     * IPv6 bind; each bound to no device or to the loopback device {@code loIndex}. The port is the
     * caller's filter.
     */
    public static List<TcpListener> answering(List<TcpListener> listeners, InetAddress target, int loIndex) {
        return listeners.stream()
                .filter(l -> l.ifindex() == 0 || l.ifindex() == loIndex)
                .filter(l -> couldAnswer(l, target))
                .toList();
    }

    private static boolean couldAnswer(TcpListener l, InetAddress target) {
        boolean exactOrAny = l.address().equals(target) || l.address().isAnyLocalAddress();
        if (target instanceof Inet4Address) {
            return switch (l.family()) {
                case INET -> exactOrAny;
                case INET6 -> l.mapped() ? exactOrAny : l.address().isAnyLocalAddress() && !l.v6Only();
            };
        }
        return l.family() == TcpListener.Family.INET6 && !l.mapped() && exactOrAny;
    }
}

package io.portcullis.owner.kernel;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;

/** Which LISTEN sockets could answer a connection to one address (SPEC R30). Pure. */
public final class Answering {
    private Answering() {}

    /**
     * The listeners that could accept a connection to {@code target}: the exact address, the
     * wildcard of its family, for IPv4 also a dual-stack {@code ::} (V6ONLY off or unknown) and a
     * v4-mapped IPv6 bind; each bound to no device or to the loopback device {@code loIndex}. An
     * IPv4-mapped or IPv4-compatible target is its IPv4 address. The port is the caller's filter.
     */
    public static List<TcpListener> answering(List<TcpListener> listeners, InetAddress target, int loIndex) {
        InetAddress judged = unmapped(target);
        return listeners.stream()
                .filter(l -> l.ifindex() == 0 || l.ifindex() == loIndex)
                .filter(l -> couldAnswer(l, judged))
                .toList();
    }

    /**
     * False for a listener that answers {@code target} only if a V6ONLY that nobody could read is
     * off: a {@code ::} socket from the {@code /proc} fallback, for an IPv4 target. When every
     * answering listener is such a one, the connection may find nobody, or an IPv4 socket bound
     * after the check, so the judge refuses ({@code owner-none}).
     */
    public static boolean surely(TcpListener listener, InetAddress target) {
        return !(unmapped(target) instanceof Inet4Address
                && listener.family() == TcpListener.Family.INET6
                && !listener.mapped()
                && listener.v6Only() == TcpListener.V6Only.UNKNOWN);
    }

    /**
     * The address a connection to {@code address} reaches: the IPv4 address an IPv4-mapped
     * ({@code ::ffff:0:0/96}) or IPv4-compatible ({@code ::/96} but {@code ::} and {@code ::1})
     * IPv6 address carries (SPEC R14, R30), else {@code address} itself.
     */
    public static InetAddress unmapped(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] b = address.getAddress();
        boolean zeroTop = Arrays.equals(b, 0, 10, new byte[10], 0, 10);
        boolean mapped = zeroTop && b[10] == (byte) 0xff && b[11] == (byte) 0xff;
        boolean beyondOne = b[12] != 0 || b[13] != 0 || b[14] != 0 || (b[15] & 0xff) > 1;
        boolean compatible = zeroTop && b[10] == 0 && b[11] == 0 && beyondOne;
        if (!mapped && !compatible) {
            return address;
        }
        try {
            return InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16));
        } catch (UnknownHostException e) {
            throw new IllegalStateException("unreachable: a four-byte address", e);
        }
    }

    private static boolean couldAnswer(TcpListener l, InetAddress target) {
        boolean exactOrAny = l.address().equals(target) || l.address().isAnyLocalAddress();
        if (target instanceof Inet4Address) {
            return switch (l.family()) {
                case INET -> exactOrAny;
                case INET6 ->
                    l.mapped() ? exactOrAny : l.address().isAnyLocalAddress() && l.v6Only() != TcpListener.V6Only.ON;
            };
        }
        return l.family() == TcpListener.Family.INET6 && !l.mapped() && exactOrAny;
    }
}

package io.portcullis.relay.testing;

import io.portcullis.relay.SpawnHandle;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Sender;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * The entry's part, done by the test itself: binds the spawn's sockets on 127.0.0.1 in the test's
 * own network namespace and hands them to the relay with the spawn's key, as {@code portcullis
 * entry} does. In the relay's own namespace the DNS and named sockets may be left out (decision
 * D29), and are.
 */
public final class TestEntry {
    private TestEntry() {}

    /** Hands over {@code spawn}'s sockets; fails unless the relay accepts them. */
    public static void handOver(SpawnHandle spawn) throws IOException {
        handOver(spawn.socket(), spawn.handoffKey(), spawn.proxyPort(), spawn.forwards(), spawn.door(), false);
    }

    /**
     * @param key the spawn's hand-over key, as {@link SpawnHandle#handoffKey()} gives it
     * @param dns whether the namespace's DNS socket (UDP 127.0.0.1:53) goes too
     */
    public static void handOver(
            Path socket, String key, int proxyPort, List<Integer> forwards, OptionalInt door, boolean dns)
            throws IOException {
        List<Handoff.Socket> sockets = new ArrayList<>();
        sockets.add(socket(Handoff.Kind.PROXY, proxyPort));
        forwards.forEach(port -> sockets.add(socket(Handoff.Kind.FORWARD, port)));
        door.ifPresent(port -> sockets.add(socket(Handoff.Kind.DOOR, port)));
        if (dns) {
            sockets.add(socket(Handoff.Kind.DNS, 53));
        }
        String answer = send(socket, key, sockets);
        if (!answer.equals(Handoff.ACCEPTED)) {
            throw new IOException("the relay refused the hand-over: " + answer);
        }
    }

    /** Binds {@code sockets}, sends them with {@code spawn}'s key and returns the relay's answer; the test's copies are closed. */
    public static String send(SpawnHandle spawn, List<Handoff.Socket> sockets) throws IOException {
        return send(spawn.socket(), spawn.handoffKey(), sockets);
    }

    /** As {@link #send(SpawnHandle, List)}, with the key {@code key} (64 hex digits). */
    public static String send(Path socket, String key, List<Handoff.Socket> sockets) throws IOException {
        return Sender.bindAndHandOver(socket, Handoff.Key.parse(key), sockets, 10_000);
    }

    public static Handoff.Socket socket(Handoff.Kind kind, int port) {
        return new Handoff.Socket(kind, new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }
}

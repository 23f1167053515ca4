package io.portcullis.wire;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The entry's side of the hand-over (SPEC R4): one message to the spawn socket, one line back. */
public final class Sender {
    private static final int MAX_ANSWER = 4096;

    private Sender() {}

    /**
     * Sends {@code sockets} with their descriptors {@code fds} (same order) and the spawn's
     * {@code key} to the relay at {@code relay} and returns its answer line, without the line end:
     * {@link Handoff#ACCEPTED} or {@link Handoff#REFUSED} and why.
     */
    public static String handOver(
            Path relay, Handoff.Key key, List<Handoff.Socket> sockets, int[] fds, int timeoutMillis)
            throws IOException {
        if (sockets.size() != fds.length) {
            throw new IllegalArgumentException(
                    "fds: " + fds.length + " (expected: one per socket, " + sockets.size() + ")");
        }
        int connection = Posix.connectUnix(relay.toString(), timeoutMillis);
        try {
            Posix.sendWithFds(connection, new Handoff(key, sockets).encode(), fds);
            return answer(connection, timeoutMillis);
        } finally {
            Posix.closeQuietly(connection);
        }
    }

    /**
     * Binds {@code sockets} (listening TCP, UDP for the DNS socket) in the calling process's namespace, hands them to the
     * relay and closes these copies: the entry's whole job in one call, for tests and benches that
     * play the entry. Returns the relay's answer line.
     */
    public static String bindAndHandOver(Path relay, Handoff.Key key, List<Handoff.Socket> sockets, int timeoutMillis)
            throws IOException {
        int[] fds = new int[sockets.size()];
        int bound = 0;
        try {
            for (; bound < fds.length; bound++) {
                Handoff.Socket socket = sockets.get(bound);
                fds[bound] = socket.kind() == Handoff.Kind.DNS
                        ? Posix.bindUdp(socket.address())
                        : Posix.listenTcp(socket.address(), 4096);
            }
            return handOver(relay, key, sockets, fds, timeoutMillis);
        } finally {
            for (int i = 0; i < bound; i++) {
                Posix.closeQuietly(fds[i]);
            }
        }
    }

    /** Reads up to the first line end; an answer cut off by the relay's close reads as far as it came. */
    public static String answer(int connection, int timeoutMillis) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (line.size() < MAX_ANSWER) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                throw new IOException("the relay did not answer the hand-over within " + timeoutMillis + " ms");
            }
            if (!Posix.awaitReadable(connection, (int) left)) {
                continue;
            }
            Optional<Posix.Received> got = Posix.receive(connection, MAX_ANSWER);
            if (got.isEmpty()) {
                continue;
            }
            Posix.closeQuietly(got.get().fds());
            byte[] data = got.get().data();
            if (data.length == 0) {
                break;
            }
            for (byte b : data) {
                if (b == '\n') {
                    return line.toString(StandardCharsets.UTF_8);
                }
                line.write(b);
            }
        }
        if (line.size() == 0) {
            throw new IOException("the relay closed the spawn socket without an answer");
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}

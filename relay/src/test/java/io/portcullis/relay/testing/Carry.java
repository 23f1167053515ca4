package io.portcullis.relay.testing;

import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Carries a spawn's sockets as one process carries them to another: over a unix socket with
 * SCM_RIGHTS, so the copy holds descriptors of its own of the same sockets, and the relay that
 * restores them owns them while the one that carried keeps its own.
 */
public final class Carry {
    private Carry() {}

    /** {@code carried} with fresh descriptors of the same sockets, received over a unix socket. */
    public static Receiver.Carried copy(Receiver.Carried carried) throws IOException {
        return new Receiver.Carried(carried.origin(), copy(carried.sockets()));
    }

    /** Each of {@code sockets} with a fresh descriptor of the same socket. */
    public static List<Receiver.Held> copy(List<Receiver.Held> sockets) throws IOException {
        Path directory = Files.createTempDirectory("carry-");
        Path path = directory.resolve("s");
        int server = Posix.listenUnix(path.toString(), 1);
        int sender = -1;
        int receiver = -1;
        try {
            sender = Posix.connectUnix(path.toString(), 10_000);
            receiver = Posix.accept(server);
            Posix.sendWithFds(
                    sender,
                    new byte[] {1},
                    sockets.stream().mapToInt(Receiver.Held::fd).toArray());
            if (!Posix.awaitReadable(receiver, 10_000)) {
                throw new IOException("the descriptors did not come within 10 s");
            }
            int[] fds = Posix.receive(receiver, 16).orElseThrow().fds();
            List<Receiver.Held> copies = new ArrayList<>();
            for (int i = 0; i < fds.length; i++) {
                copies.add(new Receiver.Held(sockets.get(i).socket(), fds[i]));
            }
            return copies;
        } finally {
            Posix.closeQuietly(sender);
            Posix.closeQuietly(receiver);
            Posix.closeQuietly(server);
            Files.deleteIfExists(path);
            Files.delete(directory);
        }
    }
}

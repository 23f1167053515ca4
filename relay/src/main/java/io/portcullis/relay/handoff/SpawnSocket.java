package io.portcullis.relay.handoff;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.transport.Transport;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One spawn's unix socket (SPEC R3), for exactly one hand-over (R4). It lives in a fresh directory
 * that the relay owns: mode 0700, or 0711 when the spawn's {@code peerUid} is another uid, which
 * then owns the socket (0600) and can connect but never list, rename or replace anything. A
 * connection from another uid is closed before a byte is read. One from the right uid is read off
 * the event loop: the first whose message carries the spawn's key ({@link #key()}, minted here and
 * given to the wall alone) takes the socket, and the relay stops listening and removes the socket
 * and the directory through descriptors it opened itself, then answers one line. A connection
 * without the key is turned away and uses nothing up: whoever can reach the socket (the relay's own
 * uid, in a rootless wall) cannot hand over in the entry's place, nor end the spawn by trying
 * (decision D68). At most {@value #MAX_READING} connections are read at once.
 */
public final class SpawnSocket implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SpawnSocket.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    static final String NAME = "relay.sock";

    /**
     * How many connections one spawn socket reads at once; one past them is turned away unread. The
     * entry needs one; the rest bound what connections without the key can hold.
     */
    static final int MAX_READING = 4;

    /**
     * Where a spawn socket's connections are recorded and how a good hand-over is put to use.
     *
     * @param sharedPids whether the host configuration in effect lets an entry of the relay's uid
     *     hand over from the relay's pid namespace ({@code handoff.allowSharedPidNamespace})
     */
    public record Context(
            String spawn,
            OptionalInt peerUid,
            List<Receiver.Wanted> wanted,
            int timeoutMillis,
            BooleanSupplier sharedPids,
            Transport transport,
            EventLoopGroup loops,
            Executor blocking,
            DecisionSink decisions,
            InstantSource clock,
            LongSupplier ids) {
        public Context {
            Objects.requireNonNull(spawn, "spawn");
            Objects.requireNonNull(peerUid, "peerUid");
            wanted = List.copyOf(wanted);
            Objects.requireNonNull(sharedPids, "sharedPids");
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(loops, "loops");
            Objects.requireNonNull(blocking, "blocking");
            Objects.requireNonNull(decisions, "decisions");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(ids, "ids");
        }
    }

    private final Context context;
    private final Path directory;
    private final Path socket;
    private final SecureDirectoryStream<Path> parentStream;
    private final SecureDirectoryStream<Path> ownStream;
    private final Function<Receiver.Accepted, Optional<String>> adopt;
    private final Handoff.Key key = Handoff.Key.mint(RANDOM);
    private final AtomicInteger reading = new AtomicInteger();
    private final AtomicBoolean taken = new AtomicBoolean();
    private final AtomicBoolean removed = new AtomicBoolean();
    private final CompletableFuture<Receiver.Accepted> handedOver = new CompletableFuture<>();
    /** The listening socket; null only until {@link #listen} bound it, before any connection. */
    private @Nullable Channel server;

    private SpawnSocket(
            Context context,
            Path directory,
            SecureDirectoryStream<Path> parentStream,
            SecureDirectoryStream<Path> ownStream,
            Function<Receiver.Accepted, Optional<String>> adopt) {
        this.context = context;
        this.directory = directory;
        this.socket = directory.resolve(NAME);
        this.parentStream = parentStream;
        this.ownStream = ownStream;
        this.adopt = adopt;
    }

    /**
     * Makes the directory and listens on the socket in it, before this returns.
     *
     * @param adopt puts the checked sockets to use, or says why it cannot (then they are closed)
     */
    public static SpawnSocket open(Path parent, Context context, Function<Receiver.Accepted, Optional<String>> adopt)
            throws IOException {
        Path directory = freshDirectory(parent, safe(context.spawn()));
        SecureDirectoryStream<Path> parentStream = null;
        SecureDirectoryStream<Path> ownStream = null;
        try {
            parentStream = secure(parent);
            ownStream = secure(directory);
            SpawnSocket spawnSocket = new SpawnSocket(context, directory, parentStream, ownStream, adopt);
            spawnSocket.listen();
            return spawnSocket;
        } catch (IOException | RuntimeException e) {
            closeQuietly(ownStream);
            closeQuietly(parentStream);
            Files.deleteIfExists(directory.resolve(NAME));
            Files.deleteIfExists(directory);
            throw e;
        }
    }

    /** A new directory (0700) of a name no one had: made by mkdir, which fails on any existing name. */
    private static Path freshDirectory(Path parent, String safeId) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return Files.createDirectory(
                        parent.resolve(StaleSpawns.freshName(safeId)),
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                if (attempt == 9) {
                    throw e;
                }
            }
        }
    }

    private void listen() throws IOException {
        try {
            server = new ServerBootstrap()
                    .group(context.loops())
                    .channelFactory(context.transport().domainServer())
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel channel) {
                            accepted(channel);
                        }
                    })
                    .bind(context.transport().domainAddress(socket))
                    .sync()
                    .channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("spawn " + context.spawn() + ": interrupted while binding " + socket, e);
        }
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        int relayUid = (Integer) Files.getAttribute(directory, "unix:uid");
        if (context.peerUid().isPresent() && context.peerUid().getAsInt() != relayUid) {
            Files.setAttribute(socket, "unix:uid", context.peerUid().getAsInt());
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx--x--x"));
        }
    }

    /** The socket the entry connects to; gone once it was taken. */
    public Path path() {
        return socket;
    }

    /** The directory that holds the socket; gone once the socket was taken. */
    public Path directory() {
        return directory;
    }

    /** The spawn's hand-over key: the wall's alone, for its entry; never in a log line. */
    public Handoff.Key key() {
        return key;
    }

    /**
     * Completes with the checked sockets once a hand-over was accepted (and put to use); fails with
     * {@link HandoffRefused} when the one hand-over was refused, or with another exception once closed.
     */
    public CompletableFuture<Receiver.Accepted> handedOver() {
        return handedOver;
    }

    private void accepted(Channel channel) {
        Optional<Transport.Peer> peer = peer(channel);
        if (context.peerUid().isPresent()
                && (peer.isEmpty() || peer.get().uid() != context.peerUid().getAsInt())) {
            log.warn(
                    "spawn {}: hand-over peer {} is not uid {}",
                    context.spawn(),
                    peer,
                    context.peerUid().getAsInt());
            record(
                    channel,
                    DenyCode.PEER_UID,
                    "the peer is uid "
                            + peer.map(Transport.Peer::uid).map(String::valueOf).orElse("unknown") + " (expected: "
                            + context.peerUid().getAsInt() + ")");
            channel.close();
            return;
        }
        if (taken.get()) {
            turnAway(channel, "this spawn's sockets were handed over already (expected: one hand-over)");
            return;
        }
        if (!(channel instanceof EpollDomainSocketChannel epoll)) {
            // No hand-over can ever be read here (decision D26), so this one ends the spawn.
            if (taken.compareAndSet(false, true)) {
                channel.parent().close(); // the spawn's listening socket
                context.blocking().execute(this::remove);
            }
            refuse(
                    channel,
                    "the relay's " + context.transport().name()
                            + " transport cannot read a hand-over (expected: epoll)");
            return;
        }
        if (peer.isEmpty()) {
            turnAway(channel, "the relay cannot read the credentials of the peer");
            return;
        }
        if (reading.incrementAndGet() > MAX_READING) {
            reading.decrementAndGet();
            turnAway(
                    channel,
                    "more than " + MAX_READING + " hand-overs at once on this spawn's socket (expected: its entry's)");
            return;
        }
        channel.config().setAutoRead(false);
        int fd = epoll.fd().intValue();
        Transport.Peer entry = peer.get();
        context.blocking().execute(() -> {
            Runnable answer;
            try {
                answer = read(channel, fd, entry);
            } finally {
                reading.decrementAndGet();
            }
            channel.eventLoop().execute(answer);
        });
    }

    /**
     * Off the event loop: reads one connection's hand-over, and when it carries the key and is the
     * first to, takes the socket and puts the sockets to use. Returns the answer, for the
     * connection's loop to write.
     */
    private Runnable read(Channel channel, int fd, Transport.Peer entry) {
        Receiver.Received outcome = Receiver.receive(fd, entry.pid(), key, context.wanted(), context.timeoutMillis());
        if (outcome instanceof Receiver.Unkeyed unkeyed) {
            return () -> unkeyed(channel, entry, unkeyed.reason());
        }
        if (!taken.compareAndSet(false, true)) {
            close(outcome);
            return () -> turnAway(channel, "this spawn's sockets were handed over already (expected: one hand-over)");
        }
        channel.parent().close(); // the spawn's listening socket
        remove();
        Receiver.Received result = outcome instanceof Receiver.Accepted accepted ? use(fd, entry, accepted) : outcome;
        return () -> answer(channel, result);
    }

    /** Checks where the entry runs (decision D69), then puts its sockets to use; refused, they are closed. */
    private Receiver.Received use(int fd, Transport.Peer entry, Receiver.Accepted accepted) {
        Optional<String> problem =
                SharedPids.check(fd, entry, context.sharedPids().getAsBoolean());
        if (problem.isPresent()) {
            close(accepted);
        } else {
            problem = adopt.apply(accepted);
        }
        return problem.<Receiver.Received>map(Receiver.Refused::new).orElse(accepted);
    }

    private static void close(Receiver.Received outcome) {
        if (outcome instanceof Receiver.Accepted accepted) {
            accepted.sockets().forEach(held -> Posix.closeQuietly(held.fd()));
        }
    }

    private void answer(Channel channel, Receiver.Received outcome) {
        switch (outcome) {
            case Receiver.Accepted accepted -> {
                handedOver.complete(accepted);
                write(channel, Handoff.ACCEPTED);
            }
            case Receiver.Refused refused -> refuse(channel, refused.reason());
            case Receiver.Unkeyed unkeyed -> turnAway(channel, unkeyed.reason());
        }
    }

    /** A connection without the spawn's key: warned about (rate-limited like every line) and turned away. */
    private void unkeyed(Channel channel, Transport.Peer peer, String reason) {
        log.atWarn()
                .addKeyValue("spawn", context.spawn())
                .addKeyValue("pid", peer.pid())
                .addKeyValue("uid", peer.uid())
                .log(
                        "spawn {}: turned away a connection to its socket that did not show its hand-over key: {};"
                                + " the socket still waits for its entry",
                        context.spawn(),
                        reason);
        turnAway(channel, reason);
    }

    /** The spawn's one hand-over was refused: the spawn can never serve (its socket was taken). */
    private void refuse(Channel channel, String reason) {
        log.warn("spawn {}: refused the hand-over: {}", context.spawn(), reason);
        record(channel, DenyCode.BAD_HANDOFF, reason);
        handedOver.completeExceptionally(new HandoffRefused(reason));
        write(channel, Handoff.REFUSED + reason);
    }

    /** A connection that is not the spawn's hand-over is refused; the spawn goes on as it was. */
    private void turnAway(Channel channel, String reason) {
        record(channel, DenyCode.BAD_HANDOFF, reason);
        write(channel, Handoff.REFUSED + reason);
    }

    private static void write(Channel channel, String line) {
        channel.writeAndFlush(Unpooled.copiedBuffer(line + "\n", StandardCharsets.UTF_8))
                .addListener(ChannelFutureListener.CLOSE);
    }

    /** A refused hand-over writes a decision line of kind {@code handoff}; an accepted one writes none. */
    private void record(Channel channel, DenyCode code, String reason) {
        ConnectionRecord record = ConnectionRecord.attach(
                channel,
                context.spawn(),
                context.ids().getAsLong(),
                context.clock(),
                context.decisions(),
                Traffic.own());
        record.kind("handoff");
        record.deny(code, reason);
    }

    private Optional<Transport.Peer> peer(Channel channel) {
        try {
            return context.transport().peers().read(channel);
        } catch (IOException e) {
            log.warn("spawn {}: cannot read the hand-over peer's credentials: {}", context.spawn(), e.toString());
            return Optional.empty();
        }
    }

    /**
     * Removes the socket and the directory through the descriptors opened when they were made, so
     * a spawn's uid cannot point the removal elsewhere. Once; later calls do nothing.
     */
    void remove() {
        if (!removed.compareAndSet(false, true)) {
            return;
        }
        try {
            try {
                ownStream.deleteFile(socket.getFileName());
            } catch (NoSuchFileException e) {
                // never bound, or removed already
            }
            parentStream.deleteDirectory(directory.getFileName());
        } catch (IOException e) {
            log.warn("spawn {}: could not remove {}: {}", context.spawn(), directory, e.toString());
        } finally {
            closeQuietly(ownStream);
            closeQuietly(parentStream);
        }
    }

    /** Stops listening and removes the socket and the directory, if that did not happen yet. */
    @Override
    public void close() {
        if (server != null) {
            server.close().syncUninterruptibly();
        }
        remove();
        handedOver.completeExceptionally(new IOException("spawn " + context.spawn() + ": closed"));
    }

    private static SecureDirectoryStream<Path> secure(Path directory) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(directory);
        if (stream instanceof SecureDirectoryStream<Path> secure) {
            return secure;
        }
        stream.close();
        throw new IOException(directory + ": the file system offers no secure directory stream (expected: Linux)");
    }

    private static void closeQuietly(@Nullable DirectoryStream<Path> stream) {
        if (stream == null) {
            return;
        }
        try {
            stream.close();
        } catch (IOException e) {
            // the descriptor is released either way
        }
    }

    /**
     * The spawn's id as a file-name part: letters, digits, dot, dash and underscore, at most 32, so
     * that the socket's path under the system temporary directory stays well within the 107 bytes
     * a unix socket's path may have.
     */
    static String safe(String id) {
        String clean = id.replaceAll("[^A-Za-z0-9._-]", "_").toLowerCase(Locale.ROOT);
        return clean.length() > 32 ? clean.substring(0, 32) : clean;
    }
}

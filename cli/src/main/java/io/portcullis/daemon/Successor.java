package io.portcullis.daemon;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.CONFLICT;
import static io.netty.handler.codec.http.HttpResponseStatus.FORBIDDEN;
import static io.netty.handler.codec.http.HttpResponseStatus.SERVICE_UNAVAILABLE;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.Channel;
import io.netty.channel.unix.UnixChannel;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.ops.Reply;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running daemon's side of an upgrade (SPEC R44, {@code POST /upgrade}): hands every serving
 * spawn to the successor that asked, and stops accepting once the successor has taken the control
 * socket's path. Until then nothing changes here, so an upgrade that fails at any step leaves this
 * daemon serving everything; it takes the path back if the successor took it and went away.
 *
 * <p>The conversation, on the control connection: the successor's request carries a fresh
 * hand-over key; this daemon answers {@code 101 Switching Protocols}, then for each spawn one
 * message ({@link Frames}: its id, the policy's JSON as it was opened, the network namespace of its
 * sockets) and one hand-over message of SPEC R4 with that key and the listening sockets
 * (SCM_RIGHTS), then {@code {"end"}}. The successor restores them, starts accepting, takes the
 * path, and says {@code {"taken"}}; this daemon takes its spawns' sockets off its event loops
 * (connections then wait in the kernel's accept queue for the successor) and answers {@code
 * {"stopped"}}. Runs on the control thread: no spawn opens or closes meanwhile.
 */
final class Successor {
    private static final Logger log = LoggerFactory.getLogger(Successor.class);
    static final String PROTOCOL = "portcullis-spawns/1";
    /** How long spawns that wait for their entry's hand-over may hold an upgrade up. */
    static final Duration WAITING = Duration.ofSeconds(10);

    private static final int TIMEOUT_MILLIS = 30_000;

    /** What the daemon does for an upgrade beyond the relay: its control path, its policies' text, its end. */
    interface Host {
        /** The JSON text each open spawn was opened with, by id. */
        Map<String, String> policies();

        /** Takes the control path back when a successor took it and failed. */
        void reclaim();

        /** The successor (pid) serves every spawn in {@code carried}; this daemon stops. */
        void handedOn(long pid, List<SpawnHandle> carried);
    }

    private final Relay relay;
    private final ControlNamespaces namespaces;
    private final Host host;

    Successor(Relay relay, ControlNamespaces namespaces, Host host) {
        this.relay = Objects.requireNonNull(relay, "relay");
        this.namespaces = Objects.requireNonNull(namespaces, "namespaces");
        this.host = Objects.requireNonNull(host, "host");
    }

    /**
     * Serves one successor's {@code POST /upgrade} on {@code channel}: a refusal before anything
     * was handed over is the answer to write; empty once the connection was switched (and is now
     * closed).
     */
    Optional<Reply> serve(Channel channel, String body) {
        Handoff.Key key;
        try {
            key = Handoff.Key.parse(SpawnJson.JSON.readTree(body).path("key").asText());
        } catch (IOException | IllegalArgumentException e) {
            return Optional.of(Reply.errors(
                    BAD_REQUEST, List.of("key: " + e.getMessage() + " (expected: {\"key\": 64 hex digits})")));
        }
        Optional<Reply> refused = refusal(channel);
        if (refused.isPresent()) {
            return refused;
        }
        int fd = ((UnixChannel) channel).fd().intValue();
        List<SpawnHandle> carried;
        long pid;
        try {
            Posix.blocking(fd, TIMEOUT_MILLIS);
            Posix.sendAll(fd, switching(), 0);
            carried = handOver(fd, key);
            JsonNode answer = Frames.read(fd, TIMEOUT_MILLIS);
            if (!answer.path("taken").asBoolean()) {
                throw new IOException(
                        "the successor gave up: " + answer.path("abort").asText("no reason given"));
            }
            pid = answer.path("pid").asLong();
        } catch (IOException | RuntimeException e) {
            channel.close();
            log.warn("upgrade failed, this daemon serves every spawn on: {}", e.getMessage());
            host.reclaim();
            return Optional.empty();
        }
        // The successor accepts on every spawn's sockets and owns the control path: this daemon stops.
        carried.forEach(SpawnHandle::pause);
        try {
            Frames.write(fd, SpawnJson.JSON.createObjectNode().put("stopped", true));
        } catch (IOException e) {
            log.debug("upgrade: the successor went before it heard this daemon stopped: {}", e.toString());
        } finally {
            channel.close();
        }
        log.atInfo()
                .addKeyValue("successor", pid)
                .addKeyValue("spawns", carried.size())
                .log("upgraded: pid {} serves the {} spawns and the control socket now", pid, carried.size());
        host.handedOn(pid, carried);
        return Optional.empty();
    }

    /** Why this upgrade is refused before a byte is handed over; empty when it may go on. */
    private Optional<Reply> refusal(Channel channel) {
        Optional<ControlPeer> peer = ControlPeers.peer(channel);
        if (peer.isEmpty()
                || !namespaces.isOwn(peer.get().process())
                || peer.get().socket().map(socket -> !namespaces.isOwn(socket)).orElse(false)) {
            return Optional.of(Reply.errors(
                    FORBIDDEN,
                    List.of("upgrade: a peer in another network namespace than the daemon's (expected: the daemon's"
                            + " own; a namespace of --control-netns may drive spawns, not take them)")));
        }
        if (!relay.accepting()) {
            return Optional.of(Reply.errors(
                    SERVICE_UNAVAILABLE, List.of("daemon: draining (expected: a daemon that serves its spawns)")));
        }
        Optional<SpawnHandle> waiting = awaitHandedOver();
        return waiting.map(spawn -> Reply.errors(
                CONFLICT,
                List.of("spawn: " + spawn.id() + " still waits for its entry's hand-over after " + WAITING.toSeconds()
                        + " s (expected: every spawn handed over; close it, or upgrade once it is)")));
    }

    /** Waits up to {@link #WAITING} for every spawn to be handed over; the first still waiting then. */
    private Optional<SpawnHandle> awaitHandedOver() {
        long deadline = System.nanoTime() + WAITING.toNanos();
        while (true) {
            Optional<SpawnHandle> waiting = relay.spawns().stream()
                    .filter(spawn -> spawn.state() == SpawnHandle.State.WAITING)
                    .findFirst();
            if (waiting.isEmpty() || System.nanoTime() > deadline) {
                return waiting;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return waiting;
            }
        }
    }

    private static byte[] switching() {
        return ("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " + PROTOCOL + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Sends every serving spawn, then the end; the spawns sent. */
    private List<SpawnHandle> handOver(int fd, Handoff.Key key) throws IOException {
        List<SpawnHandle> carried = new ArrayList<>();
        ObjectNode end = SpawnJson.JSON
                .createObjectNode()
                .put("end", true)
                .put("pid", ProcessHandle.current().pid());
        var left = end.putArray("left");
        Map<String, String> policies = host.policies();
        List<SpawnHandle> spawns = relay.spawns().stream()
                .sorted(Comparator.comparing(SpawnHandle::id))
                .toList();
        for (SpawnHandle spawn : spawns) {
            Optional<Receiver.Carried> sockets = spawn.carried();
            String policy = policies.get(spawn.id());
            if (sockets.isEmpty() || policy == null) {
                left.addObject()
                        .put("id", spawn.id())
                        .put("state", spawn.state().name().toLowerCase(Locale.ROOT))
                        .put("why", spawn.broken().orElse(policy == null ? "its policy's text is not known" : ""));
                continue;
            }
            ObjectNode message = SpawnJson.JSON.createObjectNode().put("spawn", spawn.id());
            message.put("policy", policy);
            message.putObject("origin")
                    .put("inode", sockets.get().origin().inode())
                    .put("cookie", sockets.get().origin().cookie());
            Frames.write(fd, message);
            List<Handoff.Socket> named =
                    sockets.get().sockets().stream().map(Receiver.Held::socket).toList();
            int[] fds =
                    sockets.get().sockets().stream().mapToInt(Receiver.Held::fd).toArray();
            Posix.sendWithFds(fd, new Handoff(key, named).encode(), fds);
            carried.add(spawn);
        }
        Frames.write(fd, end);
        return carried;
    }
}

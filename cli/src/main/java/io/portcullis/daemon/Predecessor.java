package io.portcullis.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.portcullis.relay.Relay;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.config.ConfigException;
import io.portcullis.relay.config.SpawnPolicyJson;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Handoff;
import io.portcullis.wire.Posix;
import io.portcullis.wire.Receiver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The successor's side of an upgrade (SPEC R44, {@code portcullis daemon --upgrade}): asks the
 * running daemon for every spawn over its control socket ({@code POST /upgrade}, see {@link
 * Successor}), restores each into this daemon's relay as it comes (checked as a hand-over is, so the
 * relay accepts on it at once), and, once this daemon has taken the control path, tells the
 * running one to stop. Any failure before that lets every restored spawn go (the running daemon
 * still holds their sockets and tokens), tells the running daemon why, and fails this one.
 */
public final class Predecessor {
    private static final Logger log = LoggerFactory.getLogger(Predecessor.class);
    private static final int TIMEOUT_MILLIS = 30_000;

    private final int connection;
    private final long pid;
    private final List<SpawnHandle> restored;
    private final Map<String, String> policies;
    private final List<String> left;

    private Predecessor(
            int connection, long pid, List<SpawnHandle> restored, Map<String, String> policies, List<String> left) {
        this.connection = connection;
        this.pid = pid;
        this.restored = List.copyOf(restored);
        this.policies = Map.copyOf(policies);
        this.left = List.copyOf(left);
    }

    /** An upgrade that failed: the running daemon serves on; the message says why. */
    public static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;

        Failed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Connects to the daemon at {@code control}, receives its spawns and restores each into {@code
     * relay}; the relay accepts on all of them when this returns.
     *
     * @throws Failed when the daemon refused, or a spawn could not be received or restored: every
     *     spawn restored so far is let go, and the running daemon was told
     */
    public static Predecessor take(Path control, Relay relay) throws Failed {
        int connection;
        try {
            connection = Posix.connectUnix(control.toString(), TIMEOUT_MILLIS);
        } catch (IOException e) {
            throw new Failed("cannot reach the running daemon at " + control + ": " + e.getMessage(), e);
        }
        List<SpawnHandle> restored = new ArrayList<>();
        try {
            Handoff.Key key = Handoff.Key.mint(new SecureRandom());
            ask(connection, key);
            Map<String, String> policies = new LinkedHashMap<>();
            while (true) {
                JsonNode message = Frames.read(connection, TIMEOUT_MILLIS);
                if (message.path("end").asBoolean()) {
                    List<String> left = new ArrayList<>();
                    message.path("left")
                            .forEach(spawn -> left.add(spawn.path("id").asText() + " ("
                                    + spawn.path("state").asText() + ": "
                                    + spawn.path("why").asText() + ")"));
                    return new Predecessor(connection, message.path("pid").asLong(), restored, policies, left);
                }
                String text = message.path("policy").asText();
                restored.add(restore(relay, connection, key, message, text));
                policies.put(restored.getLast().id(), text);
            }
        } catch (IOException | ConfigException | RuntimeException e) {
            String why = e instanceof ConfigException config
                    ? String.join("; ", config.problems())
                    : Objects.requireNonNullElse(e.getMessage(), e.toString());
            abort(connection, restored, why);
            throw new Failed(why, e);
        }
    }

    /** Sends {@code POST /upgrade} with the key; fails unless the daemon switched to the upgrade's protocol. */
    private static void ask(int connection, Handoff.Key key) throws IOException {
        byte[] body = ("{\"key\": \"" + key.text() + "\"}").getBytes(StandardCharsets.US_ASCII);
        String head = "POST /upgrade HTTP/1.1\r\nHost: portcullis\r\nConnection: Upgrade\r\nUpgrade: "
                + Successor.PROTOCOL + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                + "\r\n\r\n";
        Posix.sendAll(connection, head.getBytes(StandardCharsets.US_ASCII), 0);
        Posix.sendAll(connection, body, 0);
        String answer = Frames.head(connection, TIMEOUT_MILLIS);
        if (answer.startsWith("HTTP/1.1 101 ")) {
            return;
        }
        String status = answer.substring(0, answer.indexOf("\r\n"));
        int length = 0;
        for (String line : answer.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Math.min(Integer.parseInt(line.substring(15).trim()), 64 * 1024);
            }
        }
        String said = length == 0
                ? ""
                : new String(
                        Frames.exactly(connection, length, System.nanoTime() + TIMEOUT_MILLIS * 1_000_000L),
                        StandardCharsets.UTF_8);
        throw new IOException("the running daemon refused: " + status + (said.isEmpty() ? "" : " " + said.strip()));
    }

    private static SpawnHandle restore(Relay relay, int connection, Handoff.Key key, JsonNode message, String text)
            throws IOException, ConfigException {
        String id = message.path("spawn").asText();
        JsonNode origin = message.path("origin");
        List<Receiver.Held> sockets = Receiver.receiveCarried(connection, key, TIMEOUT_MILLIS);
        SpawnPolicy policy;
        try {
            policy = SpawnPolicyJson.parse("spawn " + id, text);
            if (!policy.id().equals(id)) {
                throw new IOException("spawn " + id + ": its policy says id " + policy.id());
            }
        } catch (IOException | ConfigException | RuntimeException e) {
            sockets.forEach(held -> Posix.closeQuietly(held.fd()));
            throw e;
        }
        SpawnHandle handle = relay.restore(
                policy,
                new Receiver.Carried(
                        new Receiver.Origin(
                                origin.path("inode").asLong(),
                                origin.path("cookie").asLong()),
                        sockets));
        log.atInfo().addKeyValue("spawn", id).log("spawn restored from the running daemon");
        return handle;
    }

    /** Lets every restored spawn go, tells the running daemon why (when it still listens) and hangs up. */
    private static void abort(int connection, List<SpawnHandle> restored, String why) {
        restored.forEach(SpawnHandle::letGo);
        try {
            ObjectNode abort = SpawnJson.JSON.createObjectNode().put("abort", String.valueOf(why));
            Frames.write(connection, abort);
        } catch (IOException e) {
            // the running daemon hung up first
        } finally {
            Posix.closeQuietly(connection);
        }
    }

    /** The running daemon's pid. */
    public long pid() {
        return pid;
    }

    /** The spawns restored here, which the relay accepts on. */
    public List<SpawnHandle> restored() {
        return restored;
    }

    /** The JSON text of each restored spawn's policy, by id. */
    public Map<String, String> policies() {
        return policies;
    }

    /** The running daemon's spawns that were not carried (broken ones), each with its state and why. */
    public List<String> left() {
        return left;
    }

    /**
     * Tells the running daemon that this one serves every spawn and the control path: it stops
     * accepting (its sockets stay open for this daemon), drains and exits. Returns once it said it
     * stopped; a daemon that does not say so in time is logged about, not waited for.
     */
    public void handedOver() {
        try {
            Frames.write(
                    connection,
                    SpawnJson.JSON
                            .createObjectNode()
                            .put("taken", true)
                            .put("pid", ProcessHandle.current().pid()));
            if (!Frames.read(connection, TIMEOUT_MILLIS).path("stopped").asBoolean()) {
                log.warn("upgrade: pid {} did not say it stopped accepting", pid);
            }
        } catch (IOException e) {
            log.warn("upgrade: pid {} did not say it stopped accepting: {}", pid, e.getMessage());
        } finally {
            Posix.closeQuietly(connection);
        }
    }

    /** The upgrade failed after every spawn was restored: lets them go, and the running daemon serves on. */
    public void abort(String why) {
        abort(connection, restored, why);
    }
}

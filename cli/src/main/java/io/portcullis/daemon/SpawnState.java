package io.portcullis.daemon;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.portcullis.wire.Handoff;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What a restarted daemon needs to serve a spawn again, beside its listening sockets in the
 * descriptor store (SPEC R44): the policy as the wall gave it (its door names the token file,
 * which stays where it is), the network namespace the sockets were made in, and the sockets the
 * hand-over brought, each stored under its {@link StoreName}. One file per spawn in the service's
 * state directory ({@link StateDirectory}):
 *
 * <pre>{@code
 * {"format": 1, "policy": {...}, "namespace": {"inode": 4026532871, "cookie": 4099},
 *  "sockets": [{"kind": "proxy", "address": "127.0.0.1", "port": 39080}, ...]}
 * }</pre>
 *
 * @param inode the namespace's inode, for the log
 * @param cookie the namespace's cookie (SO_NETNS_COOKIE), which no other namespace has while the machine runs
 */
record SpawnState(JsonNode policy, long inode, long cookie, List<Handoff.Socket> sockets) {
    static final int FORMAT = 1;

    SpawnState {
        Objects.requireNonNull(policy, "policy");
        sockets = List.copyOf(sockets);
        if (sockets.isEmpty()) {
            throw new IllegalArgumentException("sockets: none (expected: the sockets the hand-over brought)");
        }
    }

    /** The names its sockets are stored under. */
    List<StoreName> names(String id) {
        return sockets.stream().map(socket -> new StoreName(id, socket)).toList();
    }

    byte[] toJson() {
        ObjectNode root = SpawnJson.JSON.createObjectNode();
        root.put("format", FORMAT);
        root.set("policy", policy);
        ObjectNode namespace = root.putObject("namespace");
        namespace.put("inode", inode);
        namespace.put("cookie", cookie);
        ArrayNode list = root.putArray("sockets");
        for (Handoff.Socket socket : sockets) {
            ObjectNode one = list.addObject();
            one.put("kind", socket.kind().label());
            one.put("address", Handoff.text(socket.address().getAddress()));
            one.put("port", socket.port());
        }
        return (root.toString() + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads a file {@link #toJson} wrote.
     *
     * @throws IllegalArgumentException when it is not one, saying what is wrong
     */
    static SpawnState parse(byte[] bytes) {
        JsonNode root;
        try {
            root = SpawnJson.JSON.readTree(new String(bytes, StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON (" + e.getOriginalMessage() + ")");
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        if (!root.path("format").isInt() || root.get("format").intValue() != FORMAT) {
            throw new IllegalArgumentException("format: " + root.get("format") + " (expected: " + FORMAT + ")");
        }
        JsonNode policy = root.get("policy");
        if (policy == null || !policy.isObject()) {
            throw new IllegalArgumentException("policy: " + policy + " (expected: a spawn policy)");
        }
        JsonNode namespace = root.path("namespace");
        if (!namespace.path("inode").canConvertToExactIntegral()
                || !namespace.path("cookie").canConvertToExactIntegral()
                || !namespace.get("inode").canConvertToLong()
                || !namespace.get("cookie").canConvertToLong()) {
            throw new IllegalArgumentException(
                    "namespace: " + root.get("namespace") + " (expected: {\"inode\": N, \"cookie\": N})");
        }
        JsonNode list = root.path("sockets");
        if (!list.isArray() || list.isEmpty()) {
            throw new IllegalArgumentException("sockets: " + root.get("sockets") + " (expected: a non-empty array)");
        }
        List<Handoff.Socket> sockets = new ArrayList<>();
        for (JsonNode one : list) {
            sockets.add(socket(one));
        }
        return new SpawnState(
                policy,
                namespace.get("inode").longValue(),
                namespace.get("cookie").longValue(),
                sockets);
    }

    private static Handoff.Socket socket(JsonNode one) {
        String kind = one.path("kind").asText("");
        String address = one.path("address").asText("");
        int port = one.path("port").isInt() ? one.get("port").intValue() : 0;
        Handoff.Kind known = Arrays.stream(Handoff.Kind.values())
                .filter(value -> value.label().equals(kind))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("sockets: " + one + " (expected: a kind of socket)"));
        InetAddress ip;
        try {
            ip = InetAddress.ofLiteral(address);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("sockets: " + one + " (expected: an address literal)");
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("sockets: " + one + " (expected: a port 1-65535)");
        }
        return new Handoff.Socket(known, new InetSocketAddress(ip, port));
    }
}

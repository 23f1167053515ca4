package io.portcullis.daemon;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.portcullis.relay.SpawnHandle;
import io.portcullis.relay.observe.Traffic;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.wire.Handoff;
import java.util.Collection;
import java.util.Locale;

/** How an open spawn is shown: the ready line of {@code portcullis relay} and the control API's answers. */
public final class SpawnJson {
    static final ObjectMapper JSON = new ObjectMapper();

    private SpawnJson() {}

    /**
     * {@code {"socket", "proxyPort", "forwards", "door", "tokenFile", "named", "dns"}} (SPEC R5,
     * R24; {@code socket} is null for a spawn restored from the daemon before an upgrade, R44): {@code named} lists each named entry as {@code {"target": "db.lan:5432", "address":
     * "127.77.0.1:5432"}}, the socket its entry binds ({@code --named}); {@code dns} is the DNS
     * socket, {@code "127.0.0.1:53"} ({@code --dns}).
     */
    public static ObjectNode ready(SpawnHandle handle) {
        ObjectNode line = JSON.createObjectNode();
        if (handle.restored()) {
            // Served again from sockets another process carried (SPEC R44): it has no spawn socket.
            line.putNull("socket");
        } else {
            line.put("socket", handle.socket().toString());
        }
        line.put("proxyPort", handle.proxyPort());
        ArrayNode forwards = line.putArray("forwards");
        handle.forwards().forEach(forwards::add);
        if (handle.door().isPresent()) {
            line.put("door", handle.door().getAsInt());
        } else {
            line.putNull("door");
        }
        if (handle.tokenFile().isPresent()) {
            line.put("tokenFile", handle.tokenFile().get().toString());
        } else {
            line.putNull("tokenFile");
        }
        ArrayNode named = line.putArray("named");
        for (SpawnPolicy.Named entry : handle.named()) {
            ObjectNode one = named.addObject();
            one.put("target", entry.entry().target().toString());
            one.put("address", Handoff.text(entry.address()));
        }
        line.put("dns", Handoff.text(handle.dns()));
        return line;
    }

    /**
     * The ready line with the spawn's hand-over key last ({@code "handoffKey"}, 64 hex digits): the
     * wall's alone, for its entry's {@code PORTCULLIS_HANDOFF_KEY}. Only the ready line of {@code
     * portcullis relay} and the answer to {@code POST /spawns} carry it; no listing, no log line.
     */
    public static ObjectNode opened(SpawnHandle handle) {
        ObjectNode line = ready(handle);
        line.put("handoffKey", handle.handoffKey());
        return line;
    }

    /**
     * The ready line with the spawn's id first, then the revision of its policy in effect (1 when
     * it opened, one more per {@code PUT}), its open connections, what its connections carried so
     * far, counted as it moves ({@code connections} accepted, {@code bytesUp}, {@code bytesDown};
     * an open tunnel's bytes included), and its state ({@code waiting}, {@code serving}, {@code
     * broken}, {@code stopped}); a broken spawn says why.
     */
    static ObjectNode described(SpawnHandle handle) {
        ObjectNode node = JSON.createObjectNode();
        node.put("id", handle.id());
        node.setAll(ready(handle));
        node.put("revision", handle.revision());
        node.put("openConnections", handle.openConnections());
        Traffic traffic = handle.traffic();
        node.put("connections", traffic.connections());
        node.put("bytesUp", traffic.bytesUp());
        node.put("bytesDown", traffic.bytesDown());
        node.put("state", handle.state().name().toLowerCase(Locale.ROOT));
        handle.broken().ifPresent(why -> node.put("broken", why));
        return node;
    }

    static ArrayNode list(Collection<SpawnHandle> handles) {
        ArrayNode list = JSON.createArrayNode();
        handles.stream().sorted((a, b) -> a.id().compareTo(b.id())).forEach(handle -> list.add(described(handle)));
        return list;
    }
}

package io.portcullis.relay.daemon;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.portcullis.relay.SpawnHandle;
import java.util.Collection;

/** How an open spawn is shown: the ready line of {@code portcullis relay} and the control API's answers. */
public final class SpawnJson {
    static final ObjectMapper JSON = new ObjectMapper();

    private SpawnJson() {}

    /** {@code {"socket", "proxyPort", "forwards", "door", "tokenFile"}} (SPEC R5). */
    public static ObjectNode ready(SpawnHandle handle) {
        ObjectNode line = JSON.createObjectNode();
        line.put("socket", handle.socket().toString());
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
        return line;
    }

    /** The ready line with the spawn's id first and its open connections last. */
    static ObjectNode described(SpawnHandle handle) {
        ObjectNode node = JSON.createObjectNode();
        node.put("id", handle.id());
        node.setAll(ready(handle));
        node.put("openConnections", handle.openConnections());
        return node;
    }

    static ArrayNode list(Collection<SpawnHandle> handles) {
        ArrayNode list = JSON.createArrayNode();
        handles.stream().sorted((a, b) -> a.id().compareTo(b.id())).forEach(handle -> list.add(described(handle)));
        return list;
    }
}

package io.portcullis.relay.door;

import io.portcullis.relay.http.Framing;
import io.portcullis.relay.http.Outgoing;
import io.portcullis.relay.http.RequestHead;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.SpawnPolicy;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Judges one door request (SPEC R13), in this order, the first refusal being the answer:
 * unambiguous framing and one {@code Host} ({@code bad-request}); the raw target by
 * {@link DoorTarget} ({@code door-target}); the method and path exactly one route of the set,
 * so {@code HEAD} is not {@code GET} ({@code door-route}); exactly one token field whose SHA-256
 * equals the token's, compared in constant time ({@code door-token}); a declared body within the
 * limit ({@code body-too-large}). Pure but for hashing.
 *
 * <p>The forwarded request carries {@code Host: 127.0.0.1:<gateway port>}, the gateway's own, its
 * framing as the relay writes it, the token field the relay matched, and of the client's other
 * fields only those {@link #ALLOWED}: an allow-list, because no list of the fields that could make
 * a gateway act on another method, path or host, or trust an address the client wrote, is ever
 * complete ({@code X-Middleware-Subrequest}, {@code X-Original-Host}, ...).
 */
final class DoorRequest {
    /**
     * The client's fields a gateway receives besides its framing and the token field (SPEC R13), in
     * lowercase: what the body is and what answer the client takes. None names a method, a path,
     * a host or an address.
     */
    static final Set<String> ALLOWED = Set.of("content-type", "accept", "accept-encoding", "accept-language");

    private DoorRequest() {}

    /** The outcome: a refusal, or the request to forward and the route it matched. */
    sealed interface Checked permits Refused, Forward {}

    record Refused(DenyCode code) implements Checked {}

    record Forward(SpawnPolicy.Route route, Outgoing outgoing) implements Checked {}

    /** @param gatewayPort the gateway's real port, named in the forwarded {@code Host} */
    static Checked judge(RequestHead head, SpawnPolicy.Door door, DoorToken token, long bodyLimit, int gatewayPort) {
        Framing framing;
        try {
            framing = Framing.of(head);
            Outgoing.host(head);
        } catch (IllegalArgumentException e) {
            return new Refused(DenyCode.BAD_REQUEST);
        }
        if (!DoorTarget.isClean(head.target())) {
            return new Refused(DenyCode.DOOR_TARGET);
        }
        SpawnPolicy.Route route = new SpawnPolicy.Route(head.method(), head.target());
        if (!door.routes().contains(route)) {
            return new Refused(DenyCode.DOOR_ROUTE);
        }
        List<String> tokens = head.values(door.tokenHeader());
        if (tokens.size() != 1 || !token.matches(tokens.getFirst())) {
            return new Refused(DenyCode.DOOR_TOKEN);
        }
        String tokenField = door.tokenHeader().toLowerCase(Locale.ROOT);
        Outgoing outgoing = Outgoing.of(
                head,
                framing,
                head.target(),
                "127.0.0.1:" + gatewayPort,
                name -> !name.equals(tokenField) && !ALLOWED.contains(name));
        if (outgoing.declaresMoreThan(bodyLimit)) {
            return new Refused(DenyCode.BODY_TOO_LARGE);
        }
        return new Forward(route, outgoing);
    }
}

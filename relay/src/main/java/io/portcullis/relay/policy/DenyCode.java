package io.portcullis.relay.policy;

import io.portcullis.owner.OwnerCode;
import java.util.Optional;

/**
 * Why a connection was refused or failed (SPEC R17). The string is stable: logs, metrics, replies
 * and tests use it. The sentence is the one human explanation, used in reply bodies and docs.
 * A code may be added; none may change meaning.
 */
public enum DenyCode {
    MODE_NONE("mode-none", "this spawn's network is none"),
    NOT_LISTED("not-listed", "no listed entry matches and the internet shape does not apply"),
    PORT_NOT_ALLOWED("port-not-allowed", "the internet shape allows port 443 only"),
    BAD_REQUEST("bad-request", "the request or its target is malformed"),
    NOT_GLOBAL_UNICAST("not-global-unicast", "an address is special-purpose, not global unicast"),
    OWN_ADDRESS("own-address", "an address or name is this host's own"),
    DENY_LISTED("deny-listed", "an address is in the operator's deny list"),
    DNS_FAILED("dns-failed", "the name could not be resolved"),
    DNS_TIMEOUT("dns-timeout", "the name did not resolve in time"),
    DNS_EMPTY("dns-empty", "the name resolved to no address"),
    DNS_UNREACHABLE(
            "dns-unreachable",
            "no DNS server could be asked: nothing listens at a server on this host, or the network to it is"
                    + " unreachable"),
    DEFAULT_NOT_LOOPBACK("default-not-loopback", "a manifest default must name a loopback address"),
    DEFAULT_GATEWAY_PORT("default-gateway-port", "a manifest default may not name the gateway's port"),
    DOOR_ROUTE("door-route", "the method and path are not a route of this spawn's door set"),
    DOOR_TARGET("door-target", "the door request target could be rewritten"),
    DOOR_TOKEN("door-token", "the door token is missing or wrong"),
    OWNER_NONE("owner-none", "nothing listens on that address and port"),
    OWNER_UNMAPPED("owner-unmapped", "the listening socket maps to no process"),
    OWNER_GATEWAY("owner-gateway", "the listener is a gateway or satellite process"),
    OWNER_WALL("owner-wall", "the listener is one of the wall's own processes"),
    OWNER_CHECKOUT("owner-checkout", "the listener runs from the gateway's checkout or home"),
    OWNER_DEFAULT_USER("owner-default-user", "a manifest default never reaches a process of the gateway's user"),
    OWNER_ROOT("owner-root", "the listener is root's, and no running container is known to publish the port"),
    OWNER_UNLABELLED("owner-unlabelled", "the container has no compose project label"),
    OWNER_UNKNOWN_PROJECT("owner-unknown-project", "the container's compose project is no installed add-on's"),
    OWNER_OTHER_ADDON("owner-other-addon", "the container belongs to another add-on"),
    OWNER_OTHER_USER("owner-other-user", "the listener belongs to another user"),
    OWNER_ERROR("owner-error", "the owner check failed, so the connection is refused"),
    OWNER_DOCKER_DOWN("owner-docker-down", "Docker is unreachable, so the owner check refuses"),
    BAD_HANDOFF("bad-handoff", "the entry's hand-over of the namespace's sockets broke the rules"),
    PEER_UID("peer-uid", "the peer's uid is not the spawn's"),
    LIMIT_SPAWN("limit-spawn", "this spawn's connection budget is full"),
    LIMIT_RELAY("limit-relay", "the relay's connection budget is full"),
    LIMIT_RATE("limit-rate", "this spawn asks faster than its rate allows"),
    CONNECT_FAILED("connect-failed", "every checked address refused the connection"),
    CONNECT_TIMEOUT("connect-timeout", "every checked address timed out"),
    UPSTREAM_FAILED("upstream-failed", "the upstream proxy could not be reached or broke the protocol"),
    UPSTREAM_REFUSED("upstream-refused", "the upstream proxy refused the target"),
    INTERNAL_ERROR("internal-error", "the relay failed while deciding, so the connection is refused"),
    HEADER_TOO_LARGE("header-too-large", "the request line and headers are larger than the limit"),
    HEADER_TIMEOUT("header-timeout", "the request head did not arrive in time"),
    BODY_TOO_LARGE("body-too-large", "the request body is larger than the limit"),
    BAD_RESPONSE("bad-response", "the upstream's answer is malformed or switches protocols"),
    RESPONSE_TOO_LARGE("response-too-large", "the upstream's answer is larger than the limit"),
    HTTP_TIMEOUT("http-timeout", "the request and its answer did not finish in time"),
    CLIENT_CLOSED(
            "client-closed",
            "the client closed (or reset) the connection before the relay answered, or its socket failed"),
    RELAY_ERROR(
            "relay-error",
            "the relay failed while handling the connection (never an I/O error of the client's socket)"),
    OWN_NAMES_UNRESOLVED(
            "own-names-unresolved",
            "an own name of this host cannot be resolved, so the internet shape refuses every target"),
    DOOR_GATEWAY("door-gateway", "the gateway's port is not held by a process of the gateway's uid"),
    GATEWAY_PORT("gateway-port", "the gateway's port on this host is reached through the door only"),
    NOT_TLS("not-tls", "the tunnel's first bytes are not a TLS ClientHello"),
    SNI_MISMATCH("sni-mismatch", "the ClientHello names another server than the CONNECT host"),
    LISTENER_BROKEN(
            "listener-broken",
            "a handed-over socket stopped accepting (shut down, destroyed or made blocking from inside the namespace), so the"
                    + " spawn takes no new connection");

    private final String code;
    private final String sentence;

    DenyCode(String code, String sentence) {
        this.code = code;
        this.sentence = sentence;
    }

    /** The stable lowercase, hyphenated code. */
    public String code() {
        return code;
    }

    /** One human sentence, without a final period. */
    public String sentence() {
        return sentence;
    }

    /**
     * The deny code of an owner check's refusal: one case per owner code, so a new owner code does
     * not compile until it has its deny code.
     */
    public static DenyCode of(OwnerCode code) {
        return switch (code) {
            case NONE -> OWNER_NONE;
            case UNMAPPED -> OWNER_UNMAPPED;
            case GATEWAY -> OWNER_GATEWAY;
            case WALL -> OWNER_WALL;
            case CHECKOUT -> OWNER_CHECKOUT;
            case DEFAULT_USER -> OWNER_DEFAULT_USER;
            case ROOT -> OWNER_ROOT;
            case UNLABELLED -> OWNER_UNLABELLED;
            case UNKNOWN_PROJECT -> OWNER_UNKNOWN_PROJECT;
            case OTHER_ADDON -> OWNER_OTHER_ADDON;
            case OTHER_USER -> OWNER_OTHER_USER;
            case ERROR -> OWNER_ERROR;
            case DOCKER_DOWN -> OWNER_DOCKER_DOWN;
        };
    }

    /** The code with this wire name; empty when no code has it. */
    public static Optional<DenyCode> of(String code) {
        for (DenyCode value : values()) {
            if (value.code.equals(code)) {
                return Optional.of(value);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return code;
    }
}

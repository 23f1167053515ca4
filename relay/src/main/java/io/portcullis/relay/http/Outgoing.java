package io.portcullis.relay.http;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.portcullis.relay.tunnel.UpstreamProxy;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The request that goes upstream: HTTP/1.1, origin-form, {@code Connection: close}, the client's
 * end-to-end fields without the hop-by-hop and proxy ones and without any whose name holds an
 * underscore (SPEC R10), framing written by the relay from the checked {@link Framing}, and the
 * {@code Host} the caller chose.
 *
 * @param request the head to send; its body follows as the client's, re-framed
 */
public record Outgoing(HttpRequest request, Framing framing) {

    /** Fields never passed on: hop-by-hop (RFC 9110 section 7.6.1), proxy credentials, and framing the relay writes itself. */
    static final Set<String> HOP_BY_HOP = Set.of(
            "connection",
            "keep-alive",
            "proxy-connection",
            "proxy-authorization",
            "proxy-authenticate",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade",
            "content-length",
            "host",
            "expect");

    public Outgoing {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(framing, "framing");
    }

    /**
     * The upstream request for {@code head}.
     *
     * @param originTarget the path and query to send
     * @param host the {@code Host} field to send
     * @param drop more fields to leave out, given the name in lowercase, e.g. the door token's
     */
    public static Outgoing of(
            RequestHead head, Framing framing, String originTarget, String host, Predicate<String> drop) {
        Set<String> removed = HopByHop.fields(HOP_BY_HOP, head.values("Connection"));
        HttpHeaders headers = new DefaultHttpHeaders();
        headers.add("Host", host);
        for (RequestHead.Field field : head.fields()) {
            String name = field.name().toLowerCase(Locale.ROOT);
            if (!removed.contains(name) && !isFolded(name) && !drop.test(name)) {
                headers.add(field.name(), field.value());
            }
        }
        switch (framing) {
            case Framing.Length length -> headers.add("Content-Length", length.bytes());
            case Framing.Chunked chunked -> headers.add("Transfer-Encoding", "chunked");
            case Framing.None none -> {}
        }
        headers.add("Connection", "close");
        return new Outgoing(
                new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(head.method()), originTarget, headers),
                framing);
    }

    /**
     * This request as it goes to an upstream proxy (SPEC R25): its target in absolute form naming
     * {@code proxied}'s authority (the checked address, or the name with {@code sendNames}), the
     * same {@code Host}, and the proxy's credentials.
     */
    public Outgoing through(UpstreamProxy.Request proxied) {
        HttpHeaders headers = request.headers().copy();
        proxied.authorization().ifPresent(value -> headers.set("Proxy-Authorization", value));
        String absolute = "http://" + proxied.authority() + request.uri();
        return new Outgoing(
                new DefaultHttpRequest(request.protocolVersion(), request.method(), absolute, headers), framing);
    }

    /**
     * Whether a server that reads {@code _} as {@code -} (as CGI and several frameworks do) could
     * take the field for another, e.g. {@code Transfer_Encoding} for {@code Transfer-Encoding}:
     * such a field is dropped rather than refused, so that the upstream reads exactly the framing
     * and fields the relay read, and a client that sends one harmless custom field still works.
     */
    static boolean isFolded(String name) {
        return name.indexOf('_') >= 0;
    }

    /**
     * The one {@code Host} field of {@code head}; empty when an HTTP/1.0 request has none.
     *
     * @throws IllegalArgumentException when it is repeated, or missing in HTTP/1.1
     */
    public static Optional<String> host(RequestHead head) {
        List<String> hosts = head.values("Host");
        if (hosts.size() > 1 || (hosts.isEmpty() && head.isHttp11())) {
            throw new IllegalArgumentException("Host: " + hosts.size() + " fields (expected: exactly one)");
        }
        return hosts.stream().findFirst();
    }

    /** Whether the client's body must be at most {@code limit} bytes and is known to be more. */
    public boolean declaresMoreThan(long limit) {
        return framing instanceof Framing.Length length && length.bytes() > limit;
    }
}

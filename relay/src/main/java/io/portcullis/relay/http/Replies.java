package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.portcullis.relay.policy.DenyCode;
import java.nio.charset.StandardCharsets;

/**
 * The proxy's answers (SPEC R17). A refusal carries {@code Portcullis-Deny: <code>}, an upstream
 * failure {@code Portcullis-Error: <code>}; both have the one-line body {@code <code>: <sentence>}
 * and close the connection, lingering ({@link Linger}) so that the client reads the answer rather
 * than a reset.
 */
public final class Replies {
    public static final String ESTABLISHED = "HTTP/1.1 200 Connection established\r\n\r\n";

    private Replies() {}

    /** Writes the answer for {@code code} and closes. */
    public static void refuse(Channel channel, DenyCode code) {
        refuse(channel, code, "");
    }

    /**
     * Writes the answer for {@code code}, with {@code told} after its sentence when not empty, and
     * closes, lingering: the write side is shut and what the client still sends is read and
     * dropped for a short bounded time first.
     */
    public static void refuse(Channel channel, DenyCode code, String told) {
        Linger.close(channel, render(code, told));
    }

    /**
     * Writes the answer for {@code code} and closes at once, without lingering: for a connection
     * that holds no budget place, when no more of them may linger.
     */
    public static void refuseAtOnce(Channel channel, DenyCode code) {
        channel.writeAndFlush(render(code)).addListener(ChannelFutureListener.CLOSE);
    }

    public static ByteBuf established() {
        return Unpooled.copiedBuffer(ESTABLISHED, StandardCharsets.US_ASCII);
    }

    /** The whole response for {@code code}. */
    public static ByteBuf render(DenyCode code) {
        return render(code, "");
    }

    /** The whole response for {@code code}, with {@code told} in parentheses after its sentence when not empty. */
    public static ByteBuf render(DenyCode code, String told) {
        Status status = status(code);
        String more = told.isEmpty() ? "" : " (" + told + ")";
        byte[] body = (code.code() + ": " + code.sentence() + more + "\n").getBytes(StandardCharsets.UTF_8);
        String text = "HTTP/1.1 " + status.number + " " + status.reason + "\r\n"
                + (status.failure ? "Portcullis-Error: " : "Portcullis-Deny: ") + code.code() + "\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + body.length + "\r\n"
                + "Connection: close\r\n"
                + "\r\n";
        return Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.US_ASCII), body);
    }

    /** The status line for a code: upstream failures are 502/504, limits 503, the rest 4xx refusals. */
    public static Status status(DenyCode code) {
        return switch (code) {
            case BAD_REQUEST -> new Status(400, "Bad Request", false);
            case BODY_TOO_LARGE -> new Status(413, "Content Too Large", false);
            case HEADER_TIMEOUT -> new Status(408, "Request Timeout", false);
            case HEADER_TOO_LARGE -> new Status(431, "Request Header Fields Too Large", false);
            case LIMIT_SPAWN, LIMIT_RELAY, LIMIT_RATE -> new Status(503, "Service Unavailable", false);
            case DNS_TIMEOUT, CONNECT_TIMEOUT, HTTP_TIMEOUT -> new Status(504, "Gateway Timeout", true);
            case DNS_FAILED,
                    DNS_EMPTY,
                    DNS_UNREACHABLE,
                    CONNECT_FAILED,
                    RELAY_ERROR,
                    BAD_RESPONSE,
                    RESPONSE_TOO_LARGE,
                    UPSTREAM_FAILED,
                    UPSTREAM_REFUSED -> new Status(502, "Bad Gateway", true);
            default -> new Status(403, "Forbidden", false);
        };
    }

    public record Status(int number, String reason, boolean failure) {}
}

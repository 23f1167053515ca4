package io.portcullis.relay.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.record.ConnectionRecord;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the upstream's answer to the client, on the upstream channel: interim {@code 1xx}
 * answers are dropped, a {@code 101} is never passed through ({@code 502 bad-response}), the
 * hop-by-hop fields and every {@code Portcullis-*} field are removed and {@code Connection: close}
 * added. The body keeps its
 * {@code Content-Length}; without one it goes chunked to an HTTP/1.1 client (so a cut answer is
 * visible) and until the close to an HTTP/1.0 one. A {@code Content-Length} over the limit is
 * {@code 502 response-too-large} before anything is written; a body that grows over it is cut.
 *
 * <p>Through the host's upstream proxy (SPEC R25) the answer's status goes into the decision
 * line's {@code upstream} field, and a {@code 407} is the proxy's own (RFC 9110 section 15.5.8:
 * only a proxy asks for proxy credentials), so the client gets {@code 502 upstream-refused}
 * instead, as for a CONNECT the proxy refused: the relay's credentials were wrong or missing,
 * which is the operator's business, and the proxy's page names the corporate network.
 */
final class UpstreamAnswer extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(UpstreamAnswer.class);
    /**
     * Fields never passed back: hop-by-hop (RFC 9110 section 7.6.1), and a proxy's challenge, which
     * belongs to the relay's hop to an upstream proxy (SPEC R25), never to the client's.
     */
    private static final Set<String> HOP_BY_HOP = Set.of(
            "connection",
            "keep-alive",
            "proxy-connection",
            "proxy-authenticate",
            "te",
            "trailer",
            "upgrade",
            "transfer-encoding");

    /**
     * The prefix of the fields only the relay writes ({@code Portcullis-Deny}, {@code
     * Portcullis-Error}, SPEC R17), in lowercase: an upstream's own are removed, so no origin can
     * pass its answer off as the relay's refusal.
     */
    static final String RELAYS_OWN = "portcullis-";

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private enum Body {
        NONE,
        LENGTH,
        CHUNKED,
        UNTIL_CLOSE
    }

    private final Exchange exchange;
    private final Channel client;
    private final boolean headRequest;
    private final boolean viaProxy;
    private final boolean http11Client;
    private final long limit;
    private @Nullable Body body;
    private boolean skipInterim;
    private long bytes;
    /** Writes to the client not yet done; the next read of the upstream waits for none. */
    private int unwritten;

    UpstreamAnswer(
            Exchange exchange,
            Channel client,
            boolean headRequest,
            boolean viaProxy,
            boolean http11Client,
            long limit) {
        this.exchange = exchange;
        this.client = client;
        this.headRequest = headRequest;
        this.viaProxy = viaProxy;
        this.http11Client = http11Client;
        this.limit = limit;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (exchange.isDone()) {
                return;
            }
            if (msg instanceof HttpObject object && object.decoderResult().isFailure()) {
                log.debug(
                        "connection {}: malformed answer: {}",
                        ConnectionRecord.of(client).id(),
                        object.decoderResult().cause().toString());
                exchange.fail(DenyCode.BAD_RESPONSE);
                return;
            }
            if (msg instanceof HttpResponse response) {
                head(ctx, response);
            }
            if (msg instanceof HttpContent content) {
                content(ctx, content);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void head(ChannelHandlerContext ctx, HttpResponse response) {
        int status = response.status().code();
        if (status == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
            exchange.fail(DenyCode.BAD_RESPONSE);
            return;
        }
        if (status < 200) {
            skipInterim = true;
            return;
        }
        if (viaProxy) {
            ConnectionRecord.of(client).upstreamStatus(status);
            if (status == HttpResponseStatus.PROXY_AUTHENTICATION_REQUIRED.code()) {
                exchange.fail(DenyCode.UPSTREAM_REFUSED, "the upstream proxy answered " + status);
                return;
            }
        }
        HttpHeaders headers = response.headers();
        boolean lengthSet = HttpUtil.isContentLengthSet(response);
        if (headRequest || status == 204 || status == 304) {
            body = Body.NONE;
        } else if (lengthSet) {
            body = Body.LENGTH;
            if (HttpUtil.getContentLength(response, -1L) > limit) {
                exchange.fail(DenyCode.RESPONSE_TOO_LARGE);
                return;
            }
        } else {
            body = http11Client ? Body.CHUNKED : Body.UNTIL_CLOSE;
        }
        if (body != Body.NONE && !onlyChunked(headers)) {
            // The relay passes no transfer coding on, so a body in gzip would reach the client unlabelled.
            exchange.fail(DenyCode.BAD_RESPONSE);
            return;
        }
        Set<String> removed = HopByHop.fields(HOP_BY_HOP, headers.getAll("Connection"));
        if (body == Body.LENGTH) {
            // The framing is the relay's: a Connection token cannot take the length away (a cut answer would look
            // whole).
            removed.remove("content-length");
        } else if (body != Body.NONE) {
            removed.add("content-length");
        }
        StringBuilder text = new StringBuilder(256)
                .append("HTTP/1.1 ")
                .append(status)
                .append(' ')
                .append(HttpResponseStatus.valueOf(status).reasonPhrase())
                .append("\r\n");
        for (Map.Entry<String, String> field : headers) {
            String name = field.getKey().toLowerCase(Locale.ROOT);
            if (!removed.contains(name) && !name.startsWith(RELAYS_OWN)) {
                text.append(field.getKey())
                        .append(": ")
                        .append(field.getValue())
                        .append("\r\n");
            }
        }
        if (body == Body.CHUNKED) {
            text.append("Transfer-Encoding: chunked\r\n");
        }
        text.append("Connection: close\r\n\r\n");
        exchange.answered();
        write(ctx, Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
    }

    /** Whether every transfer coding named is {@code chunked} (or none is). */
    private static boolean onlyChunked(HttpHeaders headers) {
        for (String field : headers.getAll("Transfer-Encoding")) {
            for (String coding : field.split(",", -1)) {
                if (!coding.trim().equalsIgnoreCase("chunked")) {
                    return false;
                }
            }
        }
        return true;
    }

    private void content(ChannelHandlerContext ctx, HttpContent content) {
        if (skipInterim) {
            if (content instanceof LastHttpContent) {
                skipInterim = false;
            }
            readWhenWritten(ctx);
            return;
        }
        ByteBuf data = content.content();
        bytes += data.readableBytes();
        if (bytes > limit) {
            exchange.fail(DenyCode.RESPONSE_TOO_LARGE);
            return;
        }
        if (data.isReadable() && body != Body.NONE) {
            ByteBuf piece = body == Body.CHUNKED
                    ? Unpooled.wrappedBuffer(
                            Unpooled.copiedBuffer(
                                    Integer.toHexString(data.readableBytes()) + "\r\n", StandardCharsets.US_ASCII),
                            data.retain(),
                            Unpooled.wrappedBuffer(CRLF))
                    : data.retain();
            write(ctx, piece);
        }
        if (content instanceof LastHttpContent) {
            if (body == Body.CHUNKED) {
                write(ctx, Unpooled.wrappedBuffer(LAST_CHUNK));
            }
            exchange.finish();
        } else if (!data.isReadable()) {
            readWhenWritten(ctx);
        }
    }

    /**
     * Writes to the client; the next piece of the answer is read once every write is done. One
     * read of the upstream may give many pieces (8 KiB each, or a chunk each); reading again after
     * the first of them is written, while the rest wait, would let a client that reads slowly pile
     * the answer up here. A write often completes at once, inside the read that gave its piece, so
     * what waits is at most about two reads' worth.
     */
    private void write(ChannelHandlerContext ctx, ByteBuf bytes) {
        ConnectionRecord.of(client).down(bytes.readableBytes());
        unwritten++;
        client.writeAndFlush(bytes).addListener((ChannelFutureListener) written -> {
            unwritten--;
            if (!written.isSuccess()) {
                exchange.fail(DenyCode.CLIENT_CLOSED);
            } else {
                readWhenWritten(ctx);
            }
        });
    }

    private void readWhenWritten(ChannelHandlerContext ctx) {
        if (unwritten == 0 && !exchange.isDone()) {
            ctx.read();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof ChannelInputShutdownEvent) {
            ended();
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        ended();
    }

    /** The upstream's input ended: fine after a whole answer, else the answer is missing or cut. */
    private void ended() {
        if (!exchange.isDone()) {
            exchange.fail(DenyCode.BAD_RESPONSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug(
                "connection {}: upstream failed: {}",
                ConnectionRecord.of(client).id(),
                cause.toString());
        exchange.fail(DenyCode.BAD_RESPONSE);
    }
}

package io.portcullis.relay.accept;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.portcullis.relay.transport.Transport;
import io.portcullis.wire.Handoff;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failed accepts of one handed-over socket, ahead of Netty's acceptor in its server channel's
 * pipeline (SPEC R4): a connection's failure is passed over, a shortage pauses accepting on the
 * socket for {@link #PAUSE_MILLIS}, anything else closes the socket's channel saying why ({@link
 * Transport#stop}). None goes on to Netty's acceptor, which would log each one and, with
 * auto-read already off, accept again at the next event.
 */
final class AcceptFailures extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(AcceptFailures.class);

    /** How long a socket waits after its accept found the relay short of descriptors or memory. */
    static final long PAUSE_MILLIS = 1000;

    private final String spawn;
    private final Handoff.Socket socket;

    AcceptFailures(String spawn, Handoff.Socket socket) {
        this.spawn = spawn;
        this.socket = socket;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        switch (AcceptFailure.of(cause)) {
            case CONNECTION ->
                log.debug(
                        "spawn {}: {}: one connection failed before it was accepted: {}",
                        spawn,
                        socket,
                        cause.toString());
            case RESOURCES -> {
                log.warn(
                        "spawn {}: {}: cannot accept ({}); accepting again in {} ms",
                        spawn,
                        socket,
                        cause.getMessage(),
                        PAUSE_MILLIS);
                ctx.channel().config().setAutoRead(false);
                ctx.executor()
                        .schedule(() -> ctx.channel().config().setAutoRead(true), PAUSE_MILLIS, TimeUnit.MILLISECONDS);
            }
            case BROKEN -> {
                Transport.stop(ctx.channel(), "accept failed: " + cause.getMessage());
            }
        }
    }
}

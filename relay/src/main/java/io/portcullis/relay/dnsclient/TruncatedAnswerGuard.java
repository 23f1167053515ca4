package io.portcullis.relay.dnsclient;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;

/**
 * Turns a truncated UDP answer (TC bit set) into a SERVFAIL that keeps the TC bit. Netty still asks
 * the same question again over TCP because of the bit, and uses the TCP answer when it gets one;
 * but when the TCP retry fails netty falls back to the UDP answer, and that must not be a partial
 * list of addresses judged as the whole (SPEC R9): as a SERVFAIL it fails the resolution instead.
 */
@ChannelHandler.Sharable
final class TruncatedAnswerGuard extends ChannelInboundHandlerAdapter {
    static final TruncatedAnswerGuard INSTANCE = new TruncatedAnswerGuard();

    /** RFC 1035 4.1.1: the third header byte holds TC (0x02), the low four bits of the fourth RCODE. */
    private static final int FLAGS_HIGH = 2;

    private static final int FLAGS_LOW = 3;
    private static final int TC = 0x02;
    private static final int RCODE_MASK = 0x0f;
    private static final int SERVFAIL = 2;

    private TruncatedAnswerGuard() {}

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof DatagramPacket packet) {
            failIfTruncated(packet.content());
        }
        ctx.fireChannelRead(msg);
    }

    static void failIfTruncated(ByteBuf message) {
        int start = message.readerIndex();
        if (message.readableBytes() <= FLAGS_LOW || (message.getByte(start + FLAGS_HIGH) & TC) == 0) {
            return;
        }
        int low = message.getByte(start + FLAGS_LOW);
        message.setByte(start + FLAGS_LOW, (low & ~RCODE_MASK) | SERVFAIL);
    }
}

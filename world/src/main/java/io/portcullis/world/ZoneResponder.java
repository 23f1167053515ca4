package io.portcullis.world;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuery;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Answers one query from the {@link Zone}, for UDP and TCP alike: the transport supplies how to
 * make an empty response for a query id and response code, and says whether it is TCP (a
 * {@link DnsAnswer.Truncated} answer differs by transport).
 */
final class ZoneResponder {
    private static final long TTL_SECONDS = 1;

    private final Zone zone;

    ZoneResponder(Zone zone) {
        this.zone = zone;
    }

    /**
     * Answers {@code query} on {@code ctx}. Everything needed is read from the query here, because
     * the query is released when the caller returns while a delayed answer is sent later.
     */
    void respond(
            ChannelHandlerContext ctx,
            DnsQuery query,
            boolean overTcp,
            Function<DnsResponseCode, DnsResponse> newResponse) {
        DnsQuestion question = query.recordAt(DnsSection.QUESTION);
        if (question == null) {
            ctx.writeAndFlush(newResponse.apply(DnsResponseCode.FORMERR));
            return;
        }
        String name = question.name();
        DnsRecordType type = question.type();
        boolean recursionDesired = query.isRecursionDesired();
        Reply reply = new Reply(ctx, name, type, recursionDesired, overTcp, newResponse);
        send(reply, zone.answer(name, type));
    }

    /** What a response needs from its query, read before the query is released. */
    private record Reply(
            ChannelHandlerContext ctx,
            String name,
            DnsRecordType type,
            boolean recursionDesired,
            boolean overTcp,
            Function<DnsResponseCode, DnsResponse> newResponse) {}

    private void send(Reply reply, DnsAnswer answer) {
        switch (answer) {
            case DnsAnswer.Silent() -> {}
            case DnsAnswer.Delayed(var delay, var then) ->
                reply.ctx().executor().schedule(() -> send(reply, then), delay.toNanos(), TimeUnit.NANOSECONDS);
            case DnsAnswer.NxDomain() -> reply(reply, DnsResponseCode.NXDOMAIN, false, List.of());
            case DnsAnswer.ServFail() -> reply(reply, DnsResponseCode.SERVFAIL, false, List.of());
            case DnsAnswer.Addresses addresses ->
                reply(reply, DnsResponseCode.NOERROR, false, addressesFor(addresses, reply.type()));
            case DnsAnswer.Truncated(var fit, var whole) -> {
                List<InetAddress> all = addressesFor(whole, reply.type());
                if (reply.overTcp()) {
                    reply(reply, DnsResponseCode.NOERROR, false, all);
                } else if (all.size() > fit) {
                    reply(reply, DnsResponseCode.NOERROR, true, all.subList(0, fit));
                } else {
                    reply(reply, DnsResponseCode.NOERROR, false, all);
                }
            }
        }
    }

    private static List<InetAddress> addressesFor(DnsAnswer.Addresses answer, DnsRecordType type) {
        if (type.equals(DnsRecordType.A)) {
            return answer.ofFamily(false);
        }
        if (type.equals(DnsRecordType.AAAA)) {
            return answer.ofFamily(true);
        }
        return List.of();
    }

    private static void reply(Reply reply, DnsResponseCode code, boolean truncated, List<InetAddress> addresses) {
        DnsResponse response = reply.newResponse().apply(code);
        if (!reply.ctx().channel().isActive()) {
            response.release();
            return;
        }
        response.setAuthoritativeAnswer(true)
                .setRecursionDesired(reply.recursionDesired())
                .setRecursionAvailable(true)
                .setTruncated(truncated);
        response.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(reply.name(), reply.type()));
        for (InetAddress address : addresses) {
            response.addRecord(
                    DnsSection.ANSWER,
                    new DefaultDnsRawRecord(
                            reply.name(), reply.type(), TTL_SECONDS, Unpooled.wrappedBuffer(address.getAddress())));
        }
        reply.ctx().writeAndFlush(response);
    }
}

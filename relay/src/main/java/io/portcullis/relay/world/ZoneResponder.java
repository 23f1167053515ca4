package io.portcullis.relay.world;

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
 * make an empty response for a query id and response code.
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
    void respond(ChannelHandlerContext ctx, DnsQuery query, Function<DnsResponseCode, DnsResponse> newResponse) {
        DnsQuestion question = query.recordAt(DnsSection.QUESTION);
        if (question == null) {
            ctx.writeAndFlush(newResponse.apply(DnsResponseCode.FORMERR));
            return;
        }
        String name = question.name();
        DnsRecordType type = question.type();
        boolean recursionDesired = query.isRecursionDesired();
        send(ctx, zone.answer(name, type), name, type, recursionDesired, newResponse);
    }

    private void send(
            ChannelHandlerContext ctx,
            DnsAnswer answer,
            String name,
            DnsRecordType type,
            boolean recursionDesired,
            Function<DnsResponseCode, DnsResponse> newResponse) {
        switch (answer) {
            case DnsAnswer.Silent() -> {}
            case DnsAnswer.Delayed(var delay, var then) ->
                ctx.executor()
                        .schedule(
                                () -> send(ctx, then, name, type, recursionDesired, newResponse),
                                delay.toNanos(),
                                TimeUnit.NANOSECONDS);
            case DnsAnswer.NxDomain() ->
                reply(ctx, newResponse.apply(DnsResponseCode.NXDOMAIN), name, type, recursionDesired, List.of());
            case DnsAnswer.ServFail() ->
                reply(ctx, newResponse.apply(DnsResponseCode.SERVFAIL), name, type, recursionDesired, List.of());
            case DnsAnswer.Addresses addresses ->
                reply(
                        ctx,
                        newResponse.apply(DnsResponseCode.NOERROR),
                        name,
                        type,
                        recursionDesired,
                        addressesFor(addresses, type));
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

    private static void reply(
            ChannelHandlerContext ctx,
            DnsResponse response,
            String name,
            DnsRecordType type,
            boolean recursionDesired,
            List<InetAddress> addresses) {
        if (!ctx.channel().isActive()) {
            response.release();
            return;
        }
        response.setAuthoritativeAnswer(true)
                .setRecursionDesired(recursionDesired)
                .setRecursionAvailable(true);
        response.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(name, type));
        for (InetAddress address : addresses) {
            response.addRecord(
                    DnsSection.ANSWER,
                    new DefaultDnsRawRecord(name, type, TTL_SECONDS, Unpooled.wrappedBuffer(address.getAddress())));
        }
        ctx.writeAndFlush(response);
    }
}

package io.portcullis.relay.dns;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsOpCode;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.portcullis.relay.judge.Judged;
import io.portcullis.relay.judge.SpawnJudge;
import io.portcullis.relay.observe.DecisionSink;
import io.portcullis.relay.policy.DenyCode;
import io.portcullis.relay.policy.SpawnPolicy;
import io.portcullis.relay.policy.Verdict;
import io.portcullis.relay.record.ConnectionRecord;
import io.portcullis.relay.rules.Rate;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the namespace's DNS socket (SPEC R24): one question per query, class IN, answered as
 * {@link Answer} says. A name that needs a lookup is decided exactly as a connection to it would
 * be (the relay's own resolver and policy, with the owner check where the target is this host),
 * and answered with the addresses that decision would dial; a refusal is {@code REFUSED}. Every
 * query writes a decision line of kind {@code dns}; a spawn asks at most {@value #RATE} a second
 * ({@value #BURST} in a burst), beyond which queries are refused {@code limit-rate}. Nothing here forwards a query: a name the
 * policy does not let through never leaves the host.
 */
public final class NamespaceDns extends SimpleChannelInboundHandler<DatagramDnsQuery> {
    private static final Logger log = LoggerFactory.getLogger(NamespaceDns.class);
    /** Seconds an answer may be kept: short, since every connection is decided again anyway. */
    static final long TTL = 30;
    /** Lookups of one spawn under way at once; a query beyond is refused. */
    static final int MAX_IN_FLIGHT = 64;
    /** Addresses in one answer at most. */
    static final int MAX_ADDRESSES = 8;
    /** Queries one spawn may ask a second, and in a burst (SPEC R16's new-connection rate). */
    static final int RATE = 200;

    static final int BURST = 400;
    /** A lookup not decided by then is refused, so a judge that never answers cannot use the places up. */
    static final long LOOKUP_TIMEOUT_MILLIS = 30_000;

    /**
     * What the namespace's DNS of one spawn needs.
     *
     * @param judge the spawn's judge for the configuration generation and the revision of the
     *     spawn's policy in use, whose policy answers too
     */
    public record Context(Supplier<SpawnJudge> judge, LongSupplier ids, InstantSource clock, DecisionSink decisions) {
        public Context {
            Objects.requireNonNull(judge, "judge");
            Objects.requireNonNull(ids, "ids");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(decisions, "decisions");
        }
    }

    private final Context context;
    private int inFlight;
    private final Rate rate = new Rate();

    private NamespaceDns(Context context) {
        this.context = context;
    }

    /** The pipeline of a spawn's DNS socket. */
    public static ChannelInitializer<Channel> initializer(Context context) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel channel) {
                channel.pipeline()
                        .addLast("dns-query", new DatagramDnsQueryDecoder())
                        .addLast("dns-response", new DatagramDnsResponseEncoder())
                        .addLast("dns", new NamespaceDns(context));
            }
        };
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) {
        DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
        response.setRecursionDesired(query.isRecursionDesired());
        response.setRecursionAvailable(true);
        if (!query.opCode().equals(DnsOpCode.QUERY)) {
            reply(ctx, response, DnsResponseCode.NOTIMP);
            return;
        }
        if (query.count(DnsSection.QUESTION) != 1) {
            reply(ctx, response, DnsResponseCode.FORMERR);
            return;
        }
        DnsQuestion question = query.recordAt(DnsSection.QUESTION);
        response.addRecord(DnsSection.QUESTION, question);
        if (question.dnsClass() != DnsRecord.CLASS_IN) {
            reply(ctx, response, DnsResponseCode.REFUSED);
            return;
        }
        SpawnJudge spawnJudge = context.judge().get();
        SpawnPolicy policy = spawnJudge.policy();
        Answer answer = Answer.to(policy, question.name(), question.type());
        ConnectionRecord record =
                ConnectionRecord.detached(policy.id(), context.ids().getAsLong(), context.clock(), context.decisions());
        record.kind("dns");
        record.generation(spawnJudge.generation());
        record.revision(spawnJudge.revision());
        record.target(answer.name());
        if (!rate.tryTake(System.nanoTime(), RATE, BURST)) {
            // A refusal, so a flood is folded in the log like any other.
            refused(record, DenyCode.LIMIT_RATE);
            reply(ctx, response, DnsResponseCode.REFUSED);
            return;
        }
        switch (answer) {
            case Answer.Synthetic synthetic -> {
                record.reason("the synthetic address of a listed tcp entry");
                answered(record, List.of(synthetic.address()));
                reply(ctx, addresses(response, question, List.of(synthetic.address())), DnsResponseCode.NOERROR);
            }
            case Answer.NoData noData -> {
                record.reason("a name the policy knows, with no record of that type");
                answered(record, List.of());
                reply(ctx, response, DnsResponseCode.NOERROR);
            }
            case Answer.Refuse refuse -> {
                refused(record, refuse.code());
                reply(ctx, response, DnsResponseCode.REFUSED);
            }
            case Answer.Judge judge -> lookup(ctx, response, question, spawnJudge, judge, record);
        }
    }

    private void lookup(
            ChannelHandlerContext ctx,
            DatagramDnsResponse response,
            DnsQuestion question,
            SpawnJudge spawnJudge,
            Answer.Judge judge,
            ConnectionRecord record) {
        if (inFlight >= MAX_IN_FLIGHT) {
            refused(record, DenyCode.LIMIT_SPAWN);
            reply(ctx, response, DnsResponseCode.REFUSED);
            return;
        }
        inFlight++;
        CompletableFuture<Judged> verdict;
        try {
            verdict = spawnJudge.decide(judge.request()).orTimeout(LOOKUP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            verdict = CompletableFuture.failedFuture(e);
        }
        verdict.whenCompleteAsync(
                (judged, error) -> {
                    inFlight--;
                    if (error != null) {
                        log.warn("dns {}: the decision failed: {}", judge.name(), error.toString());
                        record.fail(DenyCode.RELAY_ERROR);
                        record.finish();
                        reply(ctx, response, DnsResponseCode.SERVFAIL);
                        return;
                    }
                    record.took(judged.took());
                    switch (judged.verdict()) {
                        case Verdict.Allow allow -> {
                            record.reason(allow.detail());
                            List<InetAddress> family = allow.resolved().stream()
                                    .filter(address -> (address instanceof Inet6Address) == judge.ipv6())
                                    .limit(MAX_ADDRESSES)
                                    .toList();
                            allow.owner().ifPresent(record::owner);
                            answered(record, family);
                            reply(ctx, addresses(response, question, family), DnsResponseCode.NOERROR);
                        }
                        case Verdict.Deny deny -> {
                            record.resolved(deny.resolved());
                            record.deny(deny.code(), deny.detail());
                            record.finish();
                            reply(ctx, response, DnsResponseCode.REFUSED);
                        }
                    }
                },
                ctx.executor());
    }

    private static DatagramDnsResponse addresses(
            DatagramDnsResponse response, DnsQuestion question, List<InetAddress> addresses) {
        for (InetAddress address : addresses) {
            DnsRecordType type = address instanceof Inet6Address ? DnsRecordType.AAAA : DnsRecordType.A;
            response.addRecord(
                    DnsSection.ANSWER,
                    new DefaultDnsRawRecord(question.name(), type, TTL, Unpooled.wrappedBuffer(address.getAddress())));
        }
        return response;
    }

    private static void answered(ConnectionRecord record, List<InetAddress> addresses) {
        record.resolved(addresses);
        record.connected();
        record.finish();
    }

    private static void refused(ConnectionRecord record, DenyCode code) {
        record.deny(code);
        record.finish();
    }

    private static void reply(ChannelHandlerContext ctx, DatagramDnsResponse response, DnsResponseCode code) {
        response.setCode(code);
        ctx.writeAndFlush(response);
    }

    /** A query the decoder cannot read is dropped; the socket stays open for the next one. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug(
                "dns of spawn {}: dropped a query: {}",
                context.judge().get().policy().id(),
                cause.toString());
    }
}

package io.portcullis.relay.resolve;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A DNS server on 127.0.0.1 that answers from a table: a name maps to its addresses, to
 * {@code NXDOMAIN} or {@code SERVFAIL}, to nothing (no records), or to silence.
 */
public final class FakeDnsServer implements AutoCloseable {
    public static final String SILENT = "silent";

    private final Channel channel;
    private final AtomicInteger queries = new AtomicInteger();

    public FakeDnsServer(EventLoopGroup group, Map<String, String> answers) throws InterruptedException {
        this.channel = new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<NioDatagramChannel>() {
                    @Override
                    protected void initChannel(NioDatagramChannel ch) {
                        ch.pipeline()
                                .addLast(
                                        new DatagramDnsQueryDecoder(),
                                        new DatagramDnsResponseEncoder(),
                                        new Answerer(answers));
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .sync()
                .channel();
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    public int queries() {
        return queries.get();
    }

    private final class Answerer extends SimpleChannelInboundHandler<DatagramDnsQuery> {
        private final Map<String, String> answers;

        Answerer(Map<String, String> answers) {
            this.answers = answers;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) throws Exception {
            queries.incrementAndGet();
            DnsQuestion question = query.recordAt(DnsSection.QUESTION);
            String name = question.name().endsWith(".")
                    ? question.name().substring(0, question.name().length() - 1)
                    : question.name();
            String answer = answers.get(name);
            if (SILENT.equals(answer)) {
                return;
            }
            DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
            response.setRecursionAvailable(true);
            response.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(question.name(), question.type()));
            if (answer == null || answer.equals("NXDOMAIN")) {
                response.setCode(DnsResponseCode.NXDOMAIN);
            } else if (answer.equals("SERVFAIL")) {
                response.setCode(DnsResponseCode.SERVFAIL);
            } else if (!answer.isEmpty()) {
                for (String text : List.of(answer.split(" "))) {
                    byte[] bytes = InetAddress.getByName(text).getAddress();
                    DnsRecordType type = bytes.length == 4 ? DnsRecordType.A : DnsRecordType.AAAA;
                    if (type.equals(question.type())) {
                        response.addRecord(
                                DnsSection.ANSWER,
                                new DefaultDnsRawRecord(question.name(), type, 0, Unpooled.wrappedBuffer(bytes)));
                    }
                }
            }
            ctx.writeAndFlush(response);
        }
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}

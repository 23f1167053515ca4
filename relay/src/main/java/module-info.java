/**
 * The engine: the relay that accepts on the handed-over sockets, decides each connection against
 * its spawn's policy, resolves once and dials only the checked addresses (SPEC R1-R43).
 *
 * <p>The embedding API (docs/embedding.md) is the root package with the configuration readers,
 * the policy records and the decision records; the applications over the engine and the
 * benchmarks are named for the few internals they also use. Everything else stays inside.
 */
module io.portcullis.relay {
    requires static transitive org.jspecify;
    requires transitive io.portcullis.owner;
    requires transitive io.netty.transport;
    requires transitive io.portcullis.wire;
    requires io.portcullis.log;
    requires com.fasterxml.jackson.annotation;
    requires com.fasterxml.jackson.core;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jdk8;
    requires com.ibm.icu;
    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.codec.dns;
    requires io.netty.codec.http;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.resolver;
    requires io.netty.resolver.dns;
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;
    requires io.prometheus.metrics.core;
    requires io.prometheus.metrics.instrumentation.jvm;
    requires transitive io.prometheus.metrics.model;
    requires io.prometheus.writer.text;
    requires jdk.net;
    requires org.slf4j;

    // The embedding API (docs/embedding.md): the engine, its judge seam, the transport seam, the
    // configuration readers, the policy records, the resolver seam and the decision records with
    // the metrics.
    exports io.portcullis.relay;
    exports io.portcullis.relay.config;
    exports io.portcullis.relay.decide;
    exports io.portcullis.relay.observe;
    exports io.portcullis.relay.policy;
    exports io.portcullis.relay.resolve;
    exports io.portcullis.relay.transport;

    // What the applications over the engine also use: the policy's judge, built the relay's way, and
    // its rules (portcullis check and owner, the policy benchmark), the decision log (run's file, the
    // log's benchmark), and the operator's HTTP routes (the daemon's control socket and metrics
    // listener).
    exports io.portcullis.relay.judge to
            io.portcullis.cli,
            io.portcullis.bench;
    exports io.portcullis.relay.rules to
            io.portcullis.cli,
            io.portcullis.bench;
    exports io.portcullis.relay.decisionlog to
            io.portcullis.cli,
            io.portcullis.bench;
    // ... and the DNS client's rule for a server on this host (portcullis check --host asks each
    // server as the relay would).
    exports io.portcullis.relay.dnsclient to
            io.portcullis.cli;
    exports io.portcullis.relay.ops to
            io.portcullis.cli;
    // ... and why a spawn's hand-over was refused (the daemon's control API says so).
    exports io.portcullis.relay.handoff to
            io.portcullis.cli;
}

/**
 * The benchmarks: JMH for the hot path (the policy core, the owner check's parsers) and the
 * end-to-end peer and daemon measurements that bench/run-peers and docs/benchmarks.md use. They
 * use only what the engine exports.
 */
module io.portcullis.bench {
    requires static transitive org.jspecify;
    requires io.portcullis.wire;
    requires io.portcullis.owner;
    requires io.portcullis.relay;
    requires java.management;
    requires jmh.core;
}

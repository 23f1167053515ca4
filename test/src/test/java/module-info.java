/**
 * The end-to-end tests: real network namespaces, a DNS server on loopback, Docker, other users'
 * processes and an upstream proxy, driving the engine through what it exports and the command as
 * a user runs it.
 */
module io.portcullis.test {
    requires io.portcullis.wire;
    requires java.compiler;
    requires io.portcullis.owner;
    requires io.portcullis.relay;
    requires io.portcullis.world;
    requires com.fasterxml.jackson.databind;
    requires io.netty.buffer;
    requires io.netty.codec.dns;
    requires io.netty.common;
    requires org.junit.jupiter.api;
    requires org.junit.jupiter.params;
    requires org.junit.platform.launcher;
}

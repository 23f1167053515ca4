/**
 * The test and demo world: a DNS server, origins, network namespaces and processes made for one
 * test or one demo, with no route out. Nothing of Portcullis is in it; the demo and the tests use
 * it.
 */
module io.portcullis.world {
    requires static transitive org.jspecify;
    requires com.fasterxml.jackson.databind;
    requires io.netty.buffer;
    requires transitive io.netty.codec.dns;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;

    exports io.portcullis.world;
}

/**
 * The owner check: who holds the listening socket that would answer an address on this host
 * (SPEC R11, R31, R32). Callers see the question, the answer and the Docker networks; how the
 * kernel's tables and processes are read stays inside.
 */
module io.portcullis.owner {
    requires static transitive org.jspecify;
    requires com.github.benmanes.caffeine;
    requires com.github.dockerjava.api;
    requires com.github.dockerjava.core;
    requires com.github.dockerjava.transport;
    requires com.github.dockerjava.transport.zerodep;
    requires io.portcullis.wire;
    requires org.slf4j;

    exports io.portcullis.owner;
    exports io.portcullis.owner.docker;
}

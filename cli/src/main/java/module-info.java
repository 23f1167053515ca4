/**
 * The applications over the engine: the {@code portcullis} command ({@code run}, {@code check},
 * {@code owner}, {@code relay}, {@code daemon}, {@code entry}, {@code demo}), the launcher and the
 * daemon. The command's classes are read by picocli, which builds the command line and the manual
 * pages from their annotations.
 */
module io.portcullis.cli {
    requires static transitive org.jspecify;
    requires io.portcullis.entry;
    requires io.portcullis.wire;
    requires io.portcullis.log;
    requires io.portcullis.owner;
    requires io.portcullis.relay;
    requires io.portcullis.world;
    requires com.fasterxml.jackson.databind;
    requires transitive info.picocli;
    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.codec.http;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;
    requires org.slf4j;

    exports io.portcullis.cli;

    opens io.portcullis.cli to
            info.picocli;
}

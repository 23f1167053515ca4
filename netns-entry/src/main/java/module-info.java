/**
 * The entry: binds the spawn's listening sockets inside the namespace, hands them to the relay
 * and becomes the command (SPEC R4, R21). It needs nothing but the JDK and the hand-over's own
 * module; it is started by its main class, whose jar the launcher finds through it.
 */
module io.portcullis.entry {
    requires static transitive org.jspecify;
    requires io.portcullis.wire;

    exports io.portcullis.entry to
            io.portcullis.cli;
}

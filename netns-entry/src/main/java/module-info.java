/**
 * The entry: binds the spawn's listening sockets inside the namespace, hands them to the relay
 * and becomes the command (SPEC R4, R21). It needs nothing but the JDK. The hand-over message is
 * the one package the relay reads; the entry itself is started by its main class, whose jar the
 * launcher finds through it.
 */
module io.portcullis.entry {
    exports io.portcullis.entry.handoff;
    exports io.portcullis.entry to
            io.portcullis.cli;
}

package io.portcullis.relay.observe;

/**
 * Where decision records go. Called on an event loop, so an implementation must not block; it
 * must not throw either (a broken log never breaks a connection).
 */
@FunctionalInterface
public interface DecisionSink {

    void accept(Decision decision);

    /** Lines this sink could not write, since it started (a metric, SPEC R17). */
    default long dropped() {
        return 0;
    }

    /** Opens the sink's file again by its name, after a log rotation (SIGHUP, SPEC R17); a sink with no file does nothing. */
    default void reopen() {}
}

package io.portcullis.relay.observe;

/**
 * Where decision records go. Called on an event loop, so an implementation must not block; it
 * must not throw either (a broken log never breaks a connection).
 */
@FunctionalInterface
public interface DecisionSink {

    /** A connection ended: its whole record, once per connection. */
    void accept(Decision decision);

    /**
     * A connection reached its target (its upstream, or the upstream proxy's tunnel, answered):
     * its record as it stands then, {@linkplain Decision#open() open}, before a byte was copied.
     * {@link #accept} follows when it ends. The decision log writes the line now, so a tunnel that
     * never ends, or a relay that dies, still leaves it; a sink that wants only whole records
     * does nothing.
     */
    default void opened(Decision decision) {}

    /** Lines this sink could not write, since it started (a metric, SPEC R17). */
    default long dropped() {
        return 0;
    }

    /** Opens the sink's file again by its name, after a log rotation (SIGHUP, SPEC R17); a sink with no file does nothing. */
    default void reopen() {}
}

package io.portcullis.owner;

/** An owner check that owns threads and connections: close it when the relay stops. */
public interface ManagedOwnerCheck extends OwnerCheck, AutoCloseable {

    /** Stops the executor and the Docker view; later checks refuse with {@code owner-error}. */
    @Override
    void close();
}

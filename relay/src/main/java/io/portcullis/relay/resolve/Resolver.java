package io.portcullis.relay.resolve;

import java.util.concurrent.CompletableFuture;

/**
 * Resolves a name to its A and AAAA addresses (SPEC R9). Never blocks the caller, and never
 * completes exceptionally: failure, timeout and an empty answer are {@link Resolution} values.
 */
@FunctionalInterface
public interface Resolver {

    /** @param name a canonical name (lowercase ASCII, no trailing dot) */
    CompletableFuture<Resolution> resolve(String name);
}

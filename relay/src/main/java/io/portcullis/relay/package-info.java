/** The embedding API: the relay engine ({@link io.portcullis.relay.Relay}), one process hosting many spawns, and a spawn's handle. */
@NullMarked
package io.portcullis.relay;

import org.jspecify.annotations.NullMarked;

/**
 * Where a connection from a spawn enters the relay: each handed-over socket becomes a server
 * channel, and each accepted connection gets its decision record, the spawn's new-connection rate,
 * the budgets and its kind's pipeline, chosen by the socket that accepted it.
 */
@NullMarked
package io.portcullis.relay.accept;

import org.jspecify.annotations.NullMarked;

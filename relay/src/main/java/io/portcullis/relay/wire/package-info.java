/** The entry-relay wire: the preamble that opens each spawn-socket connection picks the connection's kind. */
package io.portcullis.relay.wire;

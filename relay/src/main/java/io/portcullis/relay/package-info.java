/** The relay engine: one process hosts many spawns, each behind its own unix socket. */
package io.portcullis.relay;

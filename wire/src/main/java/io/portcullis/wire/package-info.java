/**
 * What the entry and the relay share (SPEC R4): the one definition of the hand-over message in
 * which the entry gives the relay the namespace's listening sockets, its two sides ({@link
 * Sender}, {@link Receiver}), and the system calls (FFM) that they and the relay need.
 */
package io.portcullis.wire;

/**
 * What the entry and the relay share (SPEC R4): the one definition of the hand-over message in
 * which the entry gives the relay the namespace's listening sockets, its two sides ({@link
 * Sender}, {@link Receiver}), the service manager's notification socket and descriptor store ({@link
 * Notify}, {@link ListenFds}), and the system calls (FFM) that they and the relay need.
 */
@NullMarked
package io.portcullis.wire;

import org.jspecify.annotations.NullMarked;

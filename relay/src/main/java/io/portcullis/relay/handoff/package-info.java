/**
 * The spawn socket (SPEC R3, R4): a directory and a unix socket per spawn, used for exactly one
 * hand-over of the namespace's listening sockets, then removed.
 */
@NullMarked
package io.portcullis.relay.handoff;

import org.jspecify.annotations.NullMarked;

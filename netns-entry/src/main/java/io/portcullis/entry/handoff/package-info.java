/**
 * The hand-over (SPEC R4): the one definition of the message in which the entry gives the relay
 * the namespace's listening sockets, and the system calls on both sides of it.
 */
package io.portcullis.entry.handoff;

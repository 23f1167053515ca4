/** The in-namespace entry: binds the namespace's sockets, hands them to the relay, becomes the command. */
package io.portcullis.entry;

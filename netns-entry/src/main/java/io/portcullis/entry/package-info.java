/** The in-namespace entry: binds the namespace's sockets, hands them to the relay, becomes the command. */
@NullMarked
package io.portcullis.entry;

import org.jspecify.annotations.NullMarked;

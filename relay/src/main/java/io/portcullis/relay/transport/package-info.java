/** The transport: epoll (native), or NIO where the native library does not load; how listeners are adopted from descriptors. */
@NullMarked
package io.portcullis.relay.transport;

import org.jspecify.annotations.NullMarked;

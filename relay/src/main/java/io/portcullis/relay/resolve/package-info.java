/** Name resolution's seam: one asynchronous lookup and its result (the relay's own is {@code dnsclient.NettyResolver}). */
@NullMarked
package io.portcullis.relay.resolve;

import org.jspecify.annotations.NullMarked;

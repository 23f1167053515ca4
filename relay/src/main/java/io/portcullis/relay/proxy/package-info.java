/** The proxy kind: one HTTP/1.1 request head; a CONNECT becomes a tunnel, a plain HTTP request one exchange. */
@NullMarked
package io.portcullis.relay.proxy;

import org.jspecify.annotations.NullMarked;

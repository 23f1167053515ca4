/** Name resolution for decisions: one asynchronous seam and its real form over netty-resolver-dns. */
@NullMarked
package io.portcullis.relay.resolve;

import org.jspecify.annotations.NullMarked;

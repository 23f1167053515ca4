/** Name resolution for decisions: one asynchronous seam and its real form over netty-resolver-dns. */
package io.portcullis.relay.resolve;

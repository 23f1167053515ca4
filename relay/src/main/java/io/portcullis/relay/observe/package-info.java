/** What happened to each connection, for an embedder: the decision record, the sink it goes to, and the metrics. */
@NullMarked
package io.portcullis.relay.observe;

import org.jspecify.annotations.NullMarked;

/** What happened to each connection: one decision record per connection, written as one JSON line. */
@NullMarked
package io.portcullis.relay.observe;

import org.jspecify.annotations.NullMarked;

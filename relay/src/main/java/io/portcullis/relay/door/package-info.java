/** The door kind: one HTTP request per connection to the gateway, for an exact route of the spawn's door set with its token. */
@NullMarked
package io.portcullis.relay.door;

import org.jspecify.annotations.NullMarked;

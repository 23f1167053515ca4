/** What happened to each connection: one decision record per connection, written as one JSON line. */
package io.portcullis.relay.observe;

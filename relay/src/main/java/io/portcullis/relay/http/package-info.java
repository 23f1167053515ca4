/** One HTTP/1.1 request per connection: a strict request head, its body framing, and one answer from upstream. */
@NullMarked
package io.portcullis.relay.http;

import org.jspecify.annotations.NullMarked;

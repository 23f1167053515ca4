/** One HTTP/1.1 request per connection: a strict request head, its body framing, and one answer from upstream. */
package io.portcullis.relay.http;

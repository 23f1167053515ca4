/** One connection's decision record while it lives: what each handler of the connection fills in, written once when it closes. */
@NullMarked
package io.portcullis.relay.record;

import org.jspecify.annotations.NullMarked;

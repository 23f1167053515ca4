/** The parts every kind of connection shares: dialing checked addresses (directly or through an upstream proxy), the ClientHello check, and copying both ways. */
@NullMarked
package io.portcullis.relay.tunnel;

import org.jspecify.annotations.NullMarked;

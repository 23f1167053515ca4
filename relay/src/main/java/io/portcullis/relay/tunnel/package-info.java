/** The parts every kind of connection shares: dialing checked addresses (directly or through an upstream proxy), the ClientHello check, and copying both ways. */
package io.portcullis.relay.tunnel;

/** The parts every kind of connection shares: the transport, dialing checked addresses, and copying both ways. */
package io.portcullis.relay.tunnel;

/** The forward kind: raw TCP to the host's loopback port, judged like a listed target. */
package io.portcullis.relay.forward;

/** The forward kind: raw TCP to the host's loopback port, judged like a listed target. */
@NullMarked
package io.portcullis.relay.forward;

import org.jspecify.annotations.NullMarked;

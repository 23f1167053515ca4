/** The pure policy core: the order of evaluation (the rules and their steps), the address classes of R14, this host's own addresses, and the upstream route. */
@NullMarked
package io.portcullis.relay.rules;

import org.jspecify.annotations.NullMarked;

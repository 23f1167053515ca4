/** The pure policy core: the order of evaluation (the rules and their steps), the address classes of R14, this host's own addresses, the upstream route and the new-connection rate. */
@NullMarked
package io.portcullis.relay.rules;

import org.jspecify.annotations.NullMarked;

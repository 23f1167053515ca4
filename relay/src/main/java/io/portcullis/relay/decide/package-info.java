/** The judge: the seam ({@code Judge}), the policy's judge (the pure rules, DNS once, this host's own addresses and the owner check) and the judge bound to one connection. */
@NullMarked
package io.portcullis.relay.decide;

import org.jspecify.annotations.NullMarked;

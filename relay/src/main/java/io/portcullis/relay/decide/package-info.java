/** The judge's seam: what decides one connection of one spawn (the relay's own is {@code judge.PolicyJudge}). */
@NullMarked
package io.portcullis.relay.decide;

import org.jspecify.annotations.NullMarked;

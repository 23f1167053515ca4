/** The relay's argument checks, each failing with {@code name: value (expected: ...)}. */
@NullMarked
package io.portcullis.relay.checks;

import org.jspecify.annotations.NullMarked;

/**
 * Configuration generations (SPEC R2): what one host configuration builds (owner check, DNS, the
 * policy's judge, upstream proxy, the kinds with their limits), swapped in by a reload and closed
 * once the connections that started under it no longer need it.
 */
@NullMarked
package io.portcullis.relay.generation;

import org.jspecify.annotations.NullMarked;

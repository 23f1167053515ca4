/** The cost of spawns in one relay: time to open one, memory per open spawn and per idle tunnel. */
@NullMarked
package io.portcullis.bench.daemon;

import org.jspecify.annotations.NullMarked;

/** Benchmarks of the owner check: a cached answer, and a fresh one over the kernel and /proc. */
@NullMarked
package io.portcullis.bench.owner;

import org.jspecify.annotations.NullMarked;

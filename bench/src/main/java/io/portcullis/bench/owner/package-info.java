/** Benchmarks of the owner check: a cached answer, and a fresh one over the kernel and /proc. */
package io.portcullis.bench.owner;

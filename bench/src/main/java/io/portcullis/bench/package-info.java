/** JMH benchmarks of the hot path. */
@NullMarked
package io.portcullis.bench;

import org.jspecify.annotations.NullMarked;

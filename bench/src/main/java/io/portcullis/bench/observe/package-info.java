/** JMH benchmarks of what the relay writes per connection: the decision line. */
@NullMarked
package io.portcullis.bench.observe;

import org.jspecify.annotations.NullMarked;

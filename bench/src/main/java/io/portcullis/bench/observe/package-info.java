/** JMH benchmarks of what the relay writes per connection: the decision line. */
package io.portcullis.bench.observe;

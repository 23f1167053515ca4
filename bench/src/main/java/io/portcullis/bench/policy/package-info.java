/** JMH benchmarks of the policy core: target parsing, address classification, whole decisions. */
@NullMarked
package io.portcullis.bench.policy;

import org.jspecify.annotations.NullMarked;

/** JMH benchmarks of the policy core: target parsing, address classification, whole decisions. */
package io.portcullis.bench.policy;

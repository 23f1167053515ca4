/** JMH benchmarks of the hot path. */
package io.portcullis.bench;

/** What an operator's tools ask a running relay over HTTP: Prometheus metrics, health and readiness. */
@NullMarked
package io.portcullis.relay.ops;

import org.jspecify.annotations.NullMarked;

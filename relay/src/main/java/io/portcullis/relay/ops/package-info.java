/** What an operator's tools ask a running relay over HTTP: Prometheus metrics, health and readiness. */
package io.portcullis.relay.ops;

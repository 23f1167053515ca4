/** End-to-end benchmark drivers for the relay engine (the shared CONNECT harness starts them). */
package io.portcullis.bench.relay;

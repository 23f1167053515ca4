/** The proxy kind: one HTTP/1.1 request head, a CONNECT judged by the policy, then a tunnel. */
package io.portcullis.relay.proxy;

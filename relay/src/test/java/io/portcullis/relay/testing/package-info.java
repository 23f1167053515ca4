/** The relay's test helpers that other modules' tests share: entries, origins and clients on loopback and in namespaces. */
package io.portcullis.relay.testing;

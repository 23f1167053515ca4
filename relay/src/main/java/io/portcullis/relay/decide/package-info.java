/** Runs a decision: the pure rules, DNS once, this host's own addresses and the owner check. */
package io.portcullis.relay.decide;

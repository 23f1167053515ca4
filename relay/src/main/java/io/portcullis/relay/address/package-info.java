/** Addresses as the relay reads, prints and matches them: IP literals and names in one canonical form, blocks matched without allocating, untrusted text quoted. */
@NullMarked
package io.portcullis.relay.address;

import org.jspecify.annotations.NullMarked;

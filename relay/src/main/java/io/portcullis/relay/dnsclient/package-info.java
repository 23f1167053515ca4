/** The relay's DNS client over netty-resolver-dns: DNS once per decision, a local server asked only while a trusted uid holds its port. */
@NullMarked
package io.portcullis.relay.dnsclient;

import org.jspecify.annotations.NullMarked;

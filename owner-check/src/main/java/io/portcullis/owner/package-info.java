/** Who owns the listening socket that would answer a connection to this host. */
package io.portcullis.owner;

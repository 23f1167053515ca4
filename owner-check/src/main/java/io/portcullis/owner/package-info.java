/** Who owns the listening socket that would answer a connection to this host. */
@NullMarked
package io.portcullis.owner;

import org.jspecify.annotations.NullMarked;

/** The kernel's view: listening TCP sockets (netlink sock_diag, /proc/net fallback) and the processes holding them. */
@NullMarked
package io.portcullis.owner.kernel;

import org.jspecify.annotations.NullMarked;

/** The kernel's view: listening TCP sockets (netlink sock_diag, /proc/net fallback) and the processes holding them. */
package io.portcullis.owner.kernel;

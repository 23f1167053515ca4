/** End-to-end tests of {@code portcullis daemon} and of the relay command's metrics file, on loopback and unix sockets only. */
package io.portcullis.it.daemon;

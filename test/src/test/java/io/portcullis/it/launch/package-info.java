/** {@code portcullis run} and {@code portcullis demo} end to end: real sandboxes, relays, origins and curl. */
package io.portcullis.it.launch;

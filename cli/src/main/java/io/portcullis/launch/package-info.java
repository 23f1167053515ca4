/**
 * The launcher behind {@code portcullis run} and {@code portcullis demo}: a relay in this process, a
 * new user and network namespace, and the entry with the command inside it.
 */
package io.portcullis.launch;

/**
 * The launcher behind {@code portcullis run} and {@code portcullis demo}: a relay in this process, a
 * new user and network namespace, and the entry with the command inside it.
 */
@NullMarked
package io.portcullis.launch;

import org.jspecify.annotations.NullMarked;

/** The daemon: many spawns in one relay, opened and closed over a unix control socket that speaks HTTP/1.1 and JSON. */
@NullMarked
package io.portcullis.daemon;

import org.jspecify.annotations.NullMarked;

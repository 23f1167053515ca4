/** JSON files to policy records, every error at once with its JSON path. */
@NullMarked
package io.portcullis.relay.config;

import org.jspecify.annotations.NullMarked;

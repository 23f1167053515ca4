/** The {@code portcullis} command line: argument parsing and exit codes over the relay's API. */
@NullMarked
package io.portcullis.cli;

import org.jspecify.annotations.NullMarked;

/** The {@code portcullis} command line: argument parsing and exit codes over the relay's API. */
package io.portcullis.cli;

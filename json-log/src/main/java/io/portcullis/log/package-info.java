/** Operational log lines as JSON, one object per line on standard error: a small SLF4J 2 provider. */
@NullMarked
package io.portcullis.log;

import org.jspecify.annotations.NullMarked;

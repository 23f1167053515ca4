/** The owner check's argument checks, one place for the port range whatever package checks it. */
@NullMarked
package io.portcullis.owner.checks;

import org.jspecify.annotations.NullMarked;

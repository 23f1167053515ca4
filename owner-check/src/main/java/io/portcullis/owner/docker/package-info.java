/** The Docker view: running containers, their published ports, network addresses and compose labels. */
@NullMarked
package io.portcullis.owner.docker;

import org.jspecify.annotations.NullMarked;

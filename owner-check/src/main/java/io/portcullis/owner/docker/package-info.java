/** The Docker view: running containers, their published ports, network addresses and compose labels. */
package io.portcullis.owner.docker;

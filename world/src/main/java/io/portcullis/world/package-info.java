/**
 * A self-contained world of network namespaces, a DNS server and origins, for {@code portcullis
 * demo} and the end-to-end tests.
 */
@NullMarked
package io.portcullis.world;

import org.jspecify.annotations.NullMarked;

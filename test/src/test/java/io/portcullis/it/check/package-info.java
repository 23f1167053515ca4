/** {@code portcullis check} end to end, against the world's real DNS server. */
package io.portcullis.it.check;

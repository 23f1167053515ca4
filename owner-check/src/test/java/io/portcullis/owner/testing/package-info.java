/** Real listeners and containers for the owner check's tests. */
package io.portcullis.owner.testing;

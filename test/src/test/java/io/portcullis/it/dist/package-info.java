/** The distribution as an operator installs it: its runtime, launcher, unit, manual pages and completion. */
package io.portcullis.it.dist;

/** End-to-end tests of the data path: a real relay, the real entry in a spawn's namespace, real clients and origins. */
package io.portcullis.it.datapath;

/** JSON files to policy records, every error at once with its JSON path. */
package io.portcullis.relay.config;
